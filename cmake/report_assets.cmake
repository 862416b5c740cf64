# The HTML report's page files, embedded into the report layer (fabperf_report) at build time,
# so `--html` and `fabperf report` work without the repository: Chart.js (third_party/chartjs,
# pinned and checked by its fetch.sh) with its licenses, and the page's own script and style.
set(FABPERF_REPORT_ASSETS
    ${CMAKE_SOURCE_DIR}/third_party/chartjs/chart.umd.min.js
    ${CMAKE_SOURCE_DIR}/third_party/chartjs/chartjs-chart-matrix.min.js
    ${CMAKE_SOURCE_DIR}/third_party/chartjs/LICENSE-chart.js.md
    ${CMAKE_SOURCE_DIR}/third_party/chartjs/LICENSE-chartjs-chart-matrix
    ${CMAKE_SOURCE_DIR}/src/report/html/report.js
    ${CMAKE_SOURCE_DIR}/src/report/html/report.css)
set(FABPERF_REPORT_ASSETS_CC ${CMAKE_BINARY_DIR}/generated/report_assets.cc)
add_custom_command(
  OUTPUT ${FABPERF_REPORT_ASSETS_CC}
  COMMAND ${CMAKE_COMMAND} -DOUT=${FABPERF_REPORT_ASSETS_CC} "-DFILES=${FABPERF_REPORT_ASSETS}"
          -P ${CMAKE_SOURCE_DIR}/cmake/embed_files.cmake
  DEPENDS ${FABPERF_REPORT_ASSETS} ${CMAKE_SOURCE_DIR}/cmake/embed_files.cmake
  COMMENT "Embedding the HTML report's files"
  VERBATIM)
target_sources(fabperf_report PRIVATE ${FABPERF_REPORT_ASSETS_CC})
