// SPDX-License-Identifier: Apache-2.0
// Small text helpers shared by the core and the tools.
#ifndef gpurText_h
#define gpurText_h

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <string>

namespace gpur
{

/** text in lower case (ASCII): names, options and selections are matched case-insensitively. */
inline std::string
ToLower(std::string text)
{
  std::transform(
    text.begin(), text.end(), text.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

/** A number for messages: %.6g (six significant digits, exponent when needed). */
inline std::string
ToText(double value)
{
  char text[32];
  std::snprintf(text, sizeof(text), "%.6g", value);
  return text;
}

} // namespace gpur

#endif
