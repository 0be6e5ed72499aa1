#include "sim/cli/options.hpp"

namespace stepsim::cli {

namespace po = boost::program_options;

po::variables_map parse_args(const Args& args, const po::options_description& visible,
                             std::vector<std::string>& files) {
  po::options_description hidden;
  hidden.add_options()("file", po::value(&files));
  po::options_description all;
  all.add(visible).add(hidden);
  po::positional_options_description pos;
  pos.add("file", -1);
  po::variables_map vm;
  po::store(po::command_line_parser(args).options(all).positional(pos).run(), vm);
  po::notify(vm);
  return vm;
}

void add_common_options(po::options_description& opts, std::vector<std::string>& sets) {
  opts.add_options()("help,h", "show this help")(
      "set", po::value(&sets)->composing(), "override a field: --set key.path=value (repeatable)");
}

std::vector<config::Override> parse_overrides(const std::vector<std::string>& sets) {
  std::vector<config::Override> out;
  for (const auto& s : sets) out.push_back(config::parse_override(s));
  return out;
}

}  // namespace stepsim::cli
