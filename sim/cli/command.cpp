#include "sim/cli/command.hpp"

#include <spdlog/spdlog.h>

#include <iostream>

namespace stepsim::cli {

namespace po = boost::program_options;

bool Invocation::has(const char* option) const {
  return vm.count(option) && !vm[option].defaulted();
}

std::string Invocation::text(const char* option) const {
  return vm.count(option) ? vm[option].as<std::string>() : std::string();
}

std::vector<std::string> Invocation::texts(const char* option) const {
  return vm.count(option) ? vm[option].as<std::vector<std::string>>() : std::vector<std::string>();
}

long long Invocation::integer(const char* option, long long lo, long long hi) const {
  return integer_option(option, text(option), lo, hi);
}

double Invocation::number(const char* option, double lo, double hi) const {
  return number_option(option, text(option), lo, hi);
}

namespace {

void check_files(const Command& c, std::size_t n) {
  const FileRule& r = c.files;
  if (n >= r.min && n <= r.max) return;
  const bool more = n > r.max && !r.more.empty();
  std::string message(more ? r.more : r.fewer);
  if (r.counted) message += ", got " + std::to_string(n);
  throw engine::UserError({"<command line>", 0, 0}, message,
                          std::string(more && !r.more_hint.empty() ? r.more_hint : r.hint));
}

}  // namespace

int run_command(const Command& c, const Args& args) {
  po::options_description opts(std::string(c.help) + (c.more_help ? c.more_help() : "") +
                               "\n\nOptions");
  add_common_options(opts);
  if (c.options) c.options(opts);
  Invocation in;
  in.vm = parse_args(args, opts, in.files);
  if (in.vm.count("help")) {
    std::cout << opts << "\n";
    return 0;
  }
  // Warnings go through the default logger; --quiet leaves it errors only. Set at every command,
  // as one process may run several.
  spdlog::set_level(in.vm.count("quiet") ? spdlog::level::err : spdlog::level::info);
  in.format = output_format(in.vm);
  // Join the MPI job (if any) first: from here on only rank 0 writes.
  if (c.ranks)
    in.workers = std::make_unique<run::Workers>(
        in.vm.count("jobs") ? static_cast<int>(in.integer("jobs", 1, 256)) : 1);
  check_files(c, in.files.size());
  in.output = in.text("output");
  if (in.vm.count("output")) in.outputs.add("--output", in.output);
  in.sets = in.texts("set");
  in.overrides = parse_overrides(in.sets);
  in.control = run_control(in.vm);
  in.outputs.set_control(&in.control);
  if (in.workers) in.workers->set_control(&in.control);
  return c.handler(in);
}

}  // namespace stepsim::cli
