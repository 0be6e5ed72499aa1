#include "sim/report/svg.hpp"

#include <doctest/doctest.h>

using namespace stepsim::report;

TEST_CASE("Axes map values to pixels, log axes by decades") {
  const LinearAxis x{0.0, 10.0, 100.0, 200.0};
  CHECK(x.at(0.0) == doctest::Approx(100.0));
  CHECK(x.at(5.0) == doctest::Approx(150.0));
  const LogAxis y{1e11, 1e16, 350.0, 0.0};  // upwards
  CHECK(y.at(1e11) == doctest::Approx(350.0));
  CHECK(y.at(1e13) == doctest::Approx(210.0));
  CHECK(y.at(1e16) == doctest::Approx(0.0));
  CHECK(y.at(0.0) == doctest::Approx(350.0));  // nothing to plot: the axis' start
}

TEST_CASE("Tick steps are 1, 2 or 5 times a power of ten") {
  CHECK(nice_step(17.3) == doctest::Approx(5.0));
  CHECK(nice_step(283.0) == doctest::Approx(50.0));
  CHECK(nice_step(0.9) == doctest::Approx(0.2));
}

TEST_CASE("Heat colours run from white to dark red and clamp") {
  CHECK(heat_colour(0.0) == "#ffffff");
  CHECK(heat_colour(-1.0) == "#ffffff");
  CHECK(heat_colour(1.0) == "#800026");
  CHECK(heat_colour(3.0) == "#800026");
  CHECK(heat_colour(0.5) == "#feb24c");
  CHECK(palette(0) == palette(10));
}

TEST_CASE("Elements escape their text and write fixed decimals") {
  CHECK(escape("a<b>&\"c\"") == "a&lt;b&gt;&amp;&quot;c&quot;");
  CHECK(svg_text(1, 2, "x<y", "", "middle") ==
        "<text x=\"1.0\" y=\"2.0\" text-anchor=\"middle\">x&lt;y</text>\n");
  CHECK(svg_rect(1, 2, -3, 4, "#fff") ==
        "<rect x=\"1.00\" y=\"2.00\" width=\"0.00\" height=\"4.00\" fill=\"#fff\"/>\n");
  CHECK(svg_polyline({{0, 0}, {1.3, 2}}, "#000") ==
        "<polyline fill=\"none\" stroke=\"#000\" points=\"0.0,0.0 1.3,2.0\"/>\n");
}
