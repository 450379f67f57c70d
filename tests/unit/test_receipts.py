"""Terminal receipts (kxm_grpc.domain.workflows.engine.receipts): what is kept, and every field the
rules refuse, named."""

from __future__ import annotations

from typing import Any

import pytest

from kxm_grpc.domain.workflows.engine.receipts import receipt
from kxm_grpc.errors import InvalidArgument

RUN = "run_" + "1" * 32


def kept(**raw: Any) -> dict[str, Any]:
    return receipt({"status": "TERMINAL_RECEIPT_STATUS_ACCEPTED", **raw}, run_id=RUN, step_id="build")


def test_the_run_and_step_are_filled_in_and_the_status_lower_cased() -> None:
    value = kept(seat="builder", metrics={"durationMs": "900", "costUsd": 0.5})

    assert value == {
        "schema": "kxm.terminal-receipt.v1",
        "status": "accepted",
        "runId": RUN,
        "stageId": "build",
        "seat": "builder",
        "metrics": {"durationMs": 900, "tokensIn": 0, "tokensOut": 0, "cacheReadTokens": 0, "costUsd": 0.5},
    }


@pytest.mark.parametrize(
    ("raw", "field"),
    [
        ({"status": "TERMINAL_RECEIPT_STATUS_UNSPECIFIED"}, "result.receipt.status"),
        ({"schema": "kxm.other.v1"}, "result.receipt.schema"),
        ({"runId": "run_" + "2" * 32}, "result.receipt.runId"),
        ({"stageId": "deploy"}, "result.receipt.stageId"),
        ({"seat": "s" * 65}, "result.receipt.seat"),
        ({"ruling": "r" * 2_049}, "result.receipt.ruling"),
        ({"evidence": {"gitHash": "abc"}}, "result.receipt.evidence.gitHash"),
        ({"evidence": {"verifiedFiles": ["f"] * 257}}, "result.receipt.evidence.verifiedFiles"),
        ({"evidence": {"findings": [{"rule": "r"}] * 33}}, "result.receipt.evidence.findings"),
        ({"evidence": {"findings": [{"message": "m" * 1_025}]}}, "result.receipt.evidence.findings[0].message"),
        ({"evidence": {"testSummary": {"failed": -1}}}, "result.receipt.evidence.testSummary"),
        ({"metrics": {"tokensIn": -1}}, "result.receipt.metrics.tokensIn"),
        ({"metrics": {"costUsd": float("nan")}}, "result.receipt.metrics.costUsd"),
    ],
)
def test_a_field_that_breaks_the_rules_is_refused_by_name(raw: dict[str, Any], field: str) -> None:
    with pytest.raises(InvalidArgument) as refused:
        kept(**raw)

    assert refused.value.field_violations[0].field == field
