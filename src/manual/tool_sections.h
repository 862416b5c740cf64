// The fab_* man pages' OUTPUT, EXAMPLES and EXIT STATUS sections, from the tool table and the
// tools' own formatter (cxi/cxi_format.h), as the originals' pages have them.
#pragma once

#include <string>

#include "cxi/cxi_tools.h"

namespace fabperf::manual {

// ".SH OUTPUT": the summary both sides print, the table's columns, --report-all's.
std::string tool_output_section(const cxi::Tool& tool);
// ".SH EXAMPLES": the cxi_write_lat page's two (a sweep with -D, -n with --report-all) in
// this tool's terms, the client's summary and table header as the tool prints them on a
// Slingshot node.
std::string tool_examples_section(const cxi::Tool& tool);
// ".SH EXIT STATUS".
std::string tool_exit_section(const cxi::Tool& tool);

}  // namespace fabperf::manual
