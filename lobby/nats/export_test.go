package nats

// ReportCPU is reportCPU, for the benchmarks of package nats_test.
var ReportCPU = reportCPU
