# The screenshots in docs/report.md, one per page kind, from real loopback runs:
#   make report-docs   runs docs/report_screenshots.sh with build/fabperf and headless Chromium
.PHONY: report-docs

report-docs: build
	docs/report_screenshots.sh $(BUILD) docs/images
