// Scanning a page's text. What an HTML page would load from outside itself: scripts, style sheets,
// images, frames, fonts, imports, and any attribute or CSS url() that points anywhere but an anchor
// in the page. The one URL allowed is the SVG namespace, which names and loads nothing.
#pragma once

#include <algorithm>
#include <string>
#include <vector>

namespace stepsim::test {

// How many times `what` occurs in `text` (overlapping occurrences counted).
inline std::size_t occurrences(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

inline std::vector<std::string> external_references(const std::string& html) {
  std::vector<std::string> found;
  auto each = [&](const std::string& what, auto ok) {
    for (auto at = html.find(what); at != std::string::npos; at = html.find(what, at + 1)) {
      const std::string around = html.substr(at, 60);
      if (!ok(around)) found.push_back(around);
    }
  };
  auto never = [](const std::string&) { return false; };
  for (const char* tag :
       {"<script", "<link", "<img", "<iframe", "<object", "<embed", "<video", "<audio", "<source",
        "<base", "@import", "@font-face", "src=", "srcset=", "<image", "<use", "<meta http-equiv"})
    each(tag, never);
  each("href=", [](const std::string& s) { return s.rfind("href=\"#", 0) == 0; });
  each("url(", [](const std::string& s) { return s.rfind("url(#", 0) == 0; });
  each("//", never);
  // "//" only in the SVG namespace.
  found.erase(std::remove_if(
                  found.begin(), found.end(),
                  [](const std::string& s) { return s.rfind("//www.w3.org/2000/svg\"", 0) == 0; }),
              found.end());
  return found;
}

}  // namespace stepsim::test
