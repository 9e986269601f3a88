#!/usr/bin/env bash
# run.sh is `make run`: the embedded dev database (ZB_HOME, default ./.zb), all migrations, the
# demo memories (skip with ZB_SKIP_DEMO=1), then zbworker in the foreground with metrics and
# River UI. Ctrl-C stops the worker; `bin/zbctl dev down` stops the database.
set -euo pipefail
cd "$(dirname "$0")/.."
bin/zbctl dev up
if [ "${ZB_SKIP_DEMO:-0}" != 1 ]; then
	bin/zbctl demo load
fi
addr=${ZB_WORKER_HTTP_ADDR:-127.0.0.1:9188}
cat <<MSG

zenbrain is running on the embedded database ('bin/zbctl dev url' prints its connection URL).
  metrics   http://$addr/metrics
  health    http://$addr/healthz
  River UI  http://$addr/riverui/

Try, in another terminal:
  bin/zbctl recall --tenant demo "how do I deploy Zeus?"
      → first: How to deploy Zeus: step 1 run make release, step 2 push the image, ...
  bin/zbctl recall --tenant demo --explain "who came on the hike to Cabo da Roca?"
      → first: On Saturday we hiked from Sintra to Cabo da Roca with Alice and Bob; ... and the signals behind its score
  bin/zbctl stats --tenant demo
      → 16 memories: core, semantic, episodic and procedural layers

Starting zbworker (Ctrl-C to stop; 'bin/zbctl dev down' stops the database).
MSG
exec bin/zbworker --riverui --http-addr "$addr"
