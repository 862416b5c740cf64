// Plain text to roff (man(7) macros): the escapes a man page's text needs.
#pragma once

#include <string>
#include <string_view>

namespace fabperf::manual {

// Text for a roff line: backslashes and hyphens escaped, a leading '.' or '\'' made literal.
std::string roff_escape(std::string_view text);

// \fBtext\fR and \fItext\fR, escaped.
std::string bold(std::string_view text);
std::string italic(std::string_view text);

// A --help text (section titles at column 0, indented bodies) as .SH sections with their
// bodies kept as laid out (.nf), four columns of indentation removed.
std::string sections_of_help(std::string_view help);

}  // namespace fabperf::manual
