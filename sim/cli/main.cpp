// stepsim: a discrete-event simulator of one distributed LLM training step. Exit statuses:
// entry.hpp.
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <iostream>

#include "sim/cli/entry.hpp"
#include "sim/cli/huge_pages.hpp"
#include "sim/cli/interrupt.hpp"

int main(int argc, char** argv) {
  stepsim::cli::tune_freed_memory();
  stepsim::cli::install_interrupt_handler();
  auto logger = spdlog::stderr_color_mt("stepsim");
  logger->set_pattern("%^%l%$: %v");
  spdlog::set_default_logger(logger);
  return stepsim::cli::run_command_line(std::vector<std::string>(argv, argv + argc), std::cerr);
}
