#!/usr/bin/env bash
# Prints whether a cluster of up.sh's is on this machine, judged by its pid files in $RUN:
#   live   at least one recorded process is running as the program it was started as: someone's
#          cluster, which nobody else may take over or stop;
#   stale  pid files whose processes are all gone or are other programs now (a run that was
#          killed): down.sh clears them, and up.sh does so itself before it starts;
#   none   no pid files.
set -uo pipefail
source "$(dirname "$0")/env.sh"

state=none
for f in "$RUN"/*.pid; do
  [ -e "$f" ] || continue
  name=${f##*/}
  if running "${name%.pid}"; then state=live; break; fi
  state=stale
done
echo "$state"
