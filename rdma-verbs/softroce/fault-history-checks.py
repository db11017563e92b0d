#!/usr/bin/env python3
"""What the callers saw during one fault of sample-faults-two-hosts.sh, from the history that
io.rdma.sample.faults.KvHistoryRecorder wrote (one JSON object per request).

    usage: fault-history-checks.py HISTORY FAULT_START_MICROS RECOVERED_MICROS

Checks, each failing the scenario (exit 1, the reason on stdout):
  - every request got an answer (the recorder records "no answer within ..." otherwise: a hang);
  - every failed request is typed: a 503 whose detail names the channel or the service it could
    not reach (the starter's RdmaChannelDownException, RdmaOperationException or
    NoServiceInstanceException), or a 504 (the sample's own timeout, sample.kv.timeout);
  - no request failed before the fault began or began after the recovery (given, in epoch
    microseconds: the connection back UP, plus a margin).
Prints one line: the requests, and the failed ones by status, completion status and channel.
"""
import collections
import json
import sys

TYPED_503 = ("kv-client@", "echo-client", "rdma-sample")


def main(history, fault_start, recovered):
    requests = [json.loads(line) for line in open(history, encoding="utf-8") if line.strip()]
    failed = [r for r in requests if r["outcome"] == "failed"]
    problems = []
    hung = [r for r in failed if "no answer within" in (r.get("error") or "")]
    if hung:
        problems.append(f"{len(hung)} requests got no answer, the first: {hung[0]}")
    untyped = [r for r in failed if not typed(r)]
    if untyped:
        problems.append(f"{len(untyped)} failures are neither a 503 naming the channel nor a 504, the first: {untyped[0]}")
    outside = [r for r in failed if r["complete"] < fault_start or r["invoke"] > recovered]
    if outside:
        problems.append(f"{len(outside)} requests failed outside the fault and its recovery, the first: {outside[0]}")
    kinds = collections.Counter(kind(r) for r in failed)
    described = ", ".join(f"{count} x {what}" for what, count in kinds.most_common()) or "none"
    print(f"{len(requests)} requests, {len(failed)} failed: {described}"
          + ("; " + "; ".join(problems) if problems else ""))
    return 1 if problems else 0


def typed(request):
    if request["status"] == 504:
        return True
    return request["status"] == 503 and any(name in (request.get("error") or "") for name in TYPED_503)


def kind(request):
    error = request.get("error") or ""
    channel = next((word.strip("'\",:") for word in error.split() if "@" in word or word.strip("'") == "echo-client"), "")
    return " ".join(part for part in (f"{request['op']} {request['status']}", request.get("completionStatus") or "",
                                       channel) if part)


if __name__ == "__main__":
    if len(sys.argv) != 4:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    sys.exit(main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3])))
