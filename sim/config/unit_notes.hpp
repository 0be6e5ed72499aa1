// Quantities an input file gives in bits, for `stepsim check` to say how they were read.
//
// A size or a bandwidth may be written in bits (`400Gb/s`, `400Gbps`, `8Gb`): stepsim reads them
// as bits, one eighth of the bytes the same digits in B would give (spec/units.hpp). A link rate
// typed as `200Gbps` where 200 GB/s was meant is then 25 GB/s without an error, so `check` lists
// every such value with its file, line and what it became. Only YAML values are looked at (after
// `key:`, in a list or a flow map); comments and quoted text are not.
#pragma once

#include <string>
#include <vector>

namespace stepsim::config {

// "FILE:LINE: 400Gb/s is read as bits: 50 GB/s (400GB/s would be bytes)" for each value in bits
// in the file's text; `lines` false leaves the line out (one value given on the command line).
std::vector<std::string> bit_quantities(const std::string& file, const std::string& text,
                                        bool lines = true);

}  // namespace stepsim::config
