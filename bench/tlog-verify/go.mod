module gantry.local/tlog-verify

go 1.23.0

require golang.org/x/mod v0.26.0
