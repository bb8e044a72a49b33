// SPDX-License-Identifier: Apache-2.0
// Small text helpers shared by the core and the tools.
#ifndef gpurText_h
#define gpurText_h

#include <algorithm>
#include <cctype>
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

} // namespace gpur

#endif
