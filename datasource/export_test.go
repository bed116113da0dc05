package datasource

// MetricHelpTable is the producers' help table, for the external tests.
var MetricHelpTable = metricHelp
