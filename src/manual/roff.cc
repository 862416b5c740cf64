// Roff escaping shared by the man pages (man_page.cc).
#include "manual/roff.h"

#include <algorithm>
#include <cctype>

namespace fabperf::manual {

std::string roff_escape(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '\\') {
      out += "\\e";
    } else if (c == '-') {
      out += "\\-";  // a minus sign, so options can be searched and copied
    } else {
      out += c;
    }
  }
  if (!out.empty() && (out[0] == '.' || out[0] == '\'')) out.insert(0, "\\&");
  return out;
}

std::string bold(std::string_view text) { return "\\fB" + roff_escape(text) + "\\fR"; }
std::string italic(std::string_view text) { return "\\fI" + roff_escape(text) + "\\fR"; }

std::string sections_of_help(std::string_view help) {
  std::string out;
  bool in_body = false;
  size_t pos = 0;
  while (pos < help.size()) {
    size_t end = help.find('\n', pos);
    if (end == std::string_view::npos) end = help.size();
    std::string_view line = help.substr(pos, end - pos);
    pos = end + 1;
    if (!line.empty() && line[0] != ' ') {
      if (in_body) out += ".fi\n";
      std::string title(line);
      std::transform(title.begin(), title.end(), title.begin(),
                     [](unsigned char ch) { return static_cast<char>(std::toupper(ch)); });
      out += ".SH " + roff_escape(title) + "\n.nf\n";
      in_body = true;
      continue;
    }
    if (line.substr(0, 4) == "    ") line.remove_prefix(4);
    // An empty line inside .nf is kept as a blank line; roff needs it spelled as .sp.
    out += line.empty() ? std::string(".sp\n") : roff_escape(line) + "\n";
  }
  if (in_body) out += ".fi\n";
  return out;
}

}  // namespace fabperf::manual
