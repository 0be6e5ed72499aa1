// Calibration tables of a device (spec/kernel_tables.hpp), from `kernel_tables:` entries: a file
// name (relative to the device file) or an inline table. A table:
//     name: deepgemm                 # short name its rows are listed by
//     source: "repository, file, commit"   # the citation
//     clock: burst | sustained       # how the rows were measured
//     library: deepgemm              # the software whose kernels ran (default: the name)
//     grid: tiles | persistent       # gemm: one CTA per tile (default), or one per SM looping
//     kind: gemm | attention | memory
//     precision: fp8                 # gemm and attention
//     pass: wgrad                    # gemm: any (default), fprop, dgrad or wgrad
//     pattern: cast                  # memory: copy (default), cast, cast_transpose, transpose,
//                                    #   gather or reduction
//     rows: [...]                    # gemm {m, n, k, groups?, rate}
//                                    # attention {pass, causal, head_dim, seq, rate}
//                                    # memory {bytes, bandwidth}
//                                    # any row: csv_line (where an import read it)
#include <filesystem>

#include "sim/config/load.hpp"
#include "sim/engine/input_files.hpp"
#include "sim/engine/simulator.hpp"

namespace stepsim::config {

namespace {

constexpr spec::Range kDimRange{1.0, 1e9};

void read_table(const Node& node, spec::DeviceSpec& d, const std::string& file) {
  MapReader r(node);
  spec::KernelTables& t = d.tables;
  spec::TableSource src;
  src.name = r.get("name").text();
  src.description = r.get("source").text();
  src.file = file;
  src.sustained = r.get("clock").choice({"burst", "sustained"}) == 1;
  src.library = src.name;
  if (auto l = r.find("library")) src.library = l->text();
  for (const auto& s : t.sources)
    if (s.name == src.name)
      r.node().fail("a second table named '" + src.name + "'", "give each table its own name");
  const int index = static_cast<int>(t.sources.size());
  t.sources.push_back(src);
  const int kind = r.get("kind").choice({"gemm", "attention", "memory"});
  spec::Precision p = spec::Precision::bf16;
  spec::GemmPass pass = spec::GemmPass::any;
  spec::MemoryPattern pattern = spec::MemoryPattern::copy;
  if (auto pn = r.find("pattern")) {
    if (kind != 2) pn->fail("only a memory table has an access pattern", "drop the key");
    pattern = static_cast<spec::MemoryPattern>(pn->choice(spec::kMemoryPatterns.words()));
  }
  if (auto g = r.find("grid")) {
    if (kind != 0) g->fail("only a gemm table has a grid", "drop the key");
    t.sources[static_cast<std::size_t>(index)].persistent = g->choice({"tiles", "persistent"}) == 1;
  }
  if (auto pn = r.find("pass")) {
    if (kind != 0) pn->fail("only a gemm table has a pass", "attention rows name theirs per row");
    pass = static_cast<spec::GemmPass>(pn->choice(spec::kGemmPasses.words()));
  }
  if (kind != 2) {
    const Node pn = r.get("precision");
    p = pn.precision();
    if (!d.supports(p))
      pn.fail("the device has no " + std::string(spec::to_string(p)) + " rate under 'compute'",
              "add the rate, or drop the table");
  }
  auto read_rate = [&](MapReader& row) {
    const Node rate = row.get("rate");
    const double v = rate.quantity(spec::Dimension::flop_rate);
    if (v > d.rate(p).peak_flops)
      rate.fail("the rate exceeds the device's " + std::string(spec::to_string(p)) + " peak",
                "a measured rate is at most the datasheet peak");
    return v;
  };
  const Node rows = r.get("rows");
  const auto items = rows.items();
  if (items.empty()) rows.fail("a table needs at least one row");
  std::size_t read = 0;
  for (const Node& item : items) {
    if (++read % 1024 == 0) engine::check_command();  // a long table: signals and --max-wall
    MapReader row(item);
    const int line = item.loc().line;
    // Imported rows name the line of the measurement they came from (calibration_import.hpp).
    if (auto cl = row.find("csv_line")) cl->integer(1, 1LL << 40);
    if (kind == 0) {
      spec::GemmRow g;
      g.precision = p;
      g.pass = pass;
      g.m = row.get("m").number(kDimRange.lo, kDimRange.hi);
      g.n = row.get("n").number(kDimRange.lo, kDimRange.hi);
      g.k = row.get("k").number(kDimRange.lo, kDimRange.hi);
      if (auto gr = row.find("groups")) g.groups = static_cast<int>(gr->integer(1, 4096));
      g.rate = read_rate(row);
      g.source = index;
      g.line = line;
      t.gemm.push_back(g);
    } else if (kind == 1) {
      spec::AttentionRow a;
      a.precision = p;
      a.backward = row.get("pass").choice({"forward", "backward"}) == 1;
      a.causal = row.get("causal").boolean();
      a.head_dim = row.get("head_dim").number(1, 4096);
      a.seq = row.get("seq").number(1, 1e8);
      a.rate = read_rate(row);
      a.source = index;
      a.line = line;
      t.attention.push_back(a);
    } else {
      spec::MemoryRow m;
      m.bytes = row.get("bytes").quantity(spec::Dimension::bytes);
      const Node bw = row.get("bandwidth");
      m.bandwidth = bw.quantity(spec::Dimension::bandwidth);
      if (m.bandwidth > d.hbm_bandwidth)
        bw.fail("the bandwidth exceeds the device's HBM bandwidth",
                "a measured bandwidth is at most the datasheet figure");
      m.source = index;
      m.line = line;
      m.pattern = pattern;
      t.memory.push_back(m);
    }
    row.finish();
  }
  r.finish();
}

}  // namespace

void note_kernel_tables(const Node& list) {
  const std::string dir = std::filesystem::path(list.context().file).parent_path().string();
  for (const Node& item : list.items())
    if (!item.is_map()) engine::note_input((std::filesystem::path(dir) / item.text()).string());
}

void read_kernel_tables(const Node& list, spec::DeviceSpec& d) {
  const std::string dir = std::filesystem::path(list.context().file).parent_path().string();
  for (const Node& item : list.items()) {
    if (item.is_map()) {
      read_table(item, d, "");
      continue;
    }
    const std::string file = (std::filesystem::path(dir) / item.text()).string();
    check_referenced_file(file, item);
    const Document doc = Document::load(file, {}, "", nullptr);
    read_table(doc.root(), d, file);
  }
}

}  // namespace stepsim::config
