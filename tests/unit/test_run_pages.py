"""Run listings' page tokens (kxm_grpc.services.workflows.step_runs.decode_before)."""

from __future__ import annotations

import pytest

from kxm_grpc.domain.pagination import encode_page_token
from kxm_grpc.errors import InvalidArgument, Reason
from kxm_grpc.services.workflows.step_runs import decode_before


def test_a_hand_made_page_token_is_invalid_argument_not_internal() -> None:
    """Page tokens are not signed: one crafted with the right query but a bad position is refused."""
    assert decode_before(encode_page_token("12/run_1", "q"), "q") == (12, "run_1")
    for after in ("x/run_1", "12/", "-3/run_1"):
        with pytest.raises(InvalidArgument) as refused:
            decode_before(encode_page_token(after, "q"), "q")
        assert refused.value.reason == Reason.INVALID_PAGE_TOKEN
