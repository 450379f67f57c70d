"""Pure rules: validation, presence, secrets, pagination, rate limiting."""

from __future__ import annotations

import time

import pytest

from kxm_grpc.domain import agents, validation
from kxm_grpc.domain.agents import Agent, Presence
from kxm_grpc.domain.clock import SystemClock, rfc3339
from kxm_grpc.domain.pagination import MAX_PAGE_SIZE, decode_page_token, encode_page_token, page_size
from kxm_grpc.domain.projects import project_name
from kxm_grpc.domain.secrets import AGENT_KEY_PREFIX, hash_secret, hashes_match, new_id, new_secret, secret_matches
from kxm_grpc.domain.validation import optional_text, required_text, utf16_length
from kxm_grpc.errors import InvalidArgument, Reason, ResourceExhausted
from kxm_grpc.server.convert import within_deadline
from kxm_grpc.server.ratelimit import RateLimiter


def agent(online: bool = True, seen: int = 100) -> Agent:
    return Agent(
        id="agt_1",
        project="p",
        name="a",
        purpose="",
        model="",
        host="",
        connect_time=0,
        last_seen_time=seen,
        online=online,
    )


@pytest.mark.parametrize(
    ("online", "now", "expected"),
    [
        (True, 100, Presence.ONLINE),
        (True, 129, Presence.ONLINE),
        (True, 130, Presence.STALE),
        (False, 100, Presence.OFFLINE),
    ],
)
def test_presence_on_the_hub_clock(online: bool, now: int, expected: Presence) -> None:
    """Online until last seen + stale-after, then stale while the flag is on; offline once off."""
    assert agent(online).presence(now, stale_after=30) is expected


def test_touch_is_due_after_a_quarter_window_or_when_offline() -> None:
    """Presence is rewritten at most every quarter window for a live agent."""
    assert not agents.needs_touch(agent(seen=100), 109, 40)
    assert agents.needs_touch(agent(seen=100), 110, 40)
    assert agents.needs_touch(agent(online=False, seen=100), 101, 40)


def test_lengths_count_utf16_code_units() -> None:
    """An emoji counts twice, like in the original hub's JavaScript."""
    assert utf16_length("a😀") == 3
    assert utf16_length("a\ud800é") == 3  # a lone surrogate is one code unit, as in JavaScript
    with pytest.raises(InvalidArgument):
        required_text("name", "😀" * 33, 64)
    assert required_text("name", "  x  ", 64) == "x"


@pytest.mark.parametrize("value", ["", "   ", "\t\n"])
def test_required_text_refuses_blank(value: str) -> None:
    """Blank required fields are refused naming the field."""
    with pytest.raises(InvalidArgument) as caught:
        required_text("target", value, 80)
    assert caught.value.field_violations[0].field == "target"


def test_nul_characters_are_refused() -> None:
    """NUL bytes never reach storage or logs."""
    with pytest.raises(InvalidArgument):
        optional_text("host", "a\x00b", 64)


def test_registration_defaults_purpose() -> None:
    """An empty purpose gets the default."""
    assert agents.registration("a", "", "", "").purpose == agents.DEFAULT_PURPOSE


@pytest.mark.parametrize("name", ["alpha", "a.b-c_d", "A1", "x" * 128])
def test_valid_project_names(name: str) -> None:
    assert project_name("name", name) == name


@pytest.mark.parametrize("name", ["", "-a", "a/b", "a b", "x" * 129, "é"])
def test_invalid_project_names(name: str) -> None:
    with pytest.raises(InvalidArgument):
        project_name("name", name)


def test_secrets_are_prefixed_random_and_stored_hashed() -> None:
    """Two secrets differ; only the right secret matches its hash; ids have 32 hex digits."""
    first, second = new_secret(AGENT_KEY_PREFIX), new_secret(AGENT_KEY_PREFIX)

    assert first != second and first.startswith(AGENT_KEY_PREFIX)
    assert secret_matches(first, hash_secret(first))
    assert not secret_matches(second, hash_secret(first))
    assert not secret_matches(first, None)
    assert len(new_id("msg").removeprefix("msg_")) == 32


def test_page_tokens_round_trip_and_bind_to_their_query() -> None:
    """A token continues its own query and is refused for another."""
    token = encode_page_token("agt_5", "agents:p:False")

    assert decode_page_token(token, "agents:p:False") == "agt_5"
    assert decode_page_token("", "anything") is None
    with pytest.raises(InvalidArgument) as caught:
        decode_page_token(token, "agents:p:True")
    assert caught.value.reason is Reason.INVALID_PAGE_TOKEN
    with pytest.raises(InvalidArgument):
        decode_page_token("%%%", "agents:p:False")


def test_page_size_defaults_caps_and_refuses_negative() -> None:
    assert page_size(0) == 100
    assert page_size(5000) == MAX_PAGE_SIZE
    with pytest.raises(InvalidArgument):
        page_size(-1)


def test_rate_limiter_refills_over_time() -> None:
    """A bucket of three refuses the fourth call and refills at limit/window per second."""
    limiter = RateLimiter(limit=3, window=3.0)
    for _ in range(3):
        limiter.check("a", now=0.0)

    with pytest.raises(ResourceExhausted) as caught:
        limiter.check("a", now=0.0)
    limiter.check("b", now=0.0)
    limiter.check("a", now=1.0)

    assert caught.value.retry_after == pytest.approx(1.0)


def test_presence_renewal_is_due_once_a_quarter_window() -> None:
    """A quarter of the window after the last renewal, presence is renewed again (streams and calls alike)."""
    assert not agents.renewal_due(100, 109, 40)
    assert agents.renewal_due(100, 110, 40)


def test_stored_hashes_compare_to_a_key_hash() -> None:
    """A stored hash matches the hash of the same key only; nothing stored matches nothing."""
    key = new_secret(AGENT_KEY_PREFIX)

    assert hashes_match(hash_secret(key), hash_secret(key))
    assert not hashes_match(hash_secret(key), hash_secret(key + "x"))
    assert not hashes_match(None, hash_secret(key))
    assert not hashes_match("", hash_secret(key))


@pytest.mark.parametrize(
    ("wait", "remaining", "expected"),
    [(10.0, None, 10.0), (10.0, 2.0, 1.8), (10.0, 0.3, 0.25), (100.0, 65.0, 64.0), (1.0, 2.0, 1.0), (10.0, 0.01, 0.0)],
)
def test_long_polls_answer_before_the_deadline(wait: float, remaining: float | None, expected: float) -> None:
    """A wait is cut to the call's remaining time minus the margin (a tenth of it, 50 ms to 1 s), never below zero."""
    assert within_deadline(wait, remaining) == pytest.approx(expected)


@pytest.mark.parametrize(
    ("raw", "trimmed"),
    [
        ("\ufeffbuilder\ufeff", "builder"),  # JavaScript trims the BOM; Python's strip() keeps it
        ("builder\x1c\x1d\x1e\x1f", "builder\x1c\x1d\x1e\x1f"),  # Python strips these separators; JS keeps them
        ("\x85builder\x85", "\x85builder\x85"),  # NEL: Python strips it, JS keeps it
        ("\u3000\u2028 builder\t\n\v\f\r\u00a0", "builder"),
    ],
)
def test_names_are_trimmed_as_javascript_trims(raw: str, trimmed: str) -> None:
    """Names are trimmed with String.prototype.trim semantics, not Python's str.strip()."""
    assert validation.js_trim(raw) == trimmed
    assert agents.registration(raw, "", "", "").name == trimmed


@pytest.mark.parametrize(
    ("name", "key"),
    [
        ("Straße", "straße"),
        ("STRASSE", "strasse"),
        ("\u039f\u0394\u039f\u03a3", "\u03bf\u03b4\u03bf\u03c2"),
        ("İ", "i\u0307"),
        (" Builder ", "builder"),
    ],
)
def test_name_keys_lowercase_as_javascript_does(name: str, key: str) -> None:
    """toLowerCase semantics: ß stays ß (casefold made it ss), final sigma is ς, İ keeps its dot."""
    assert agents.name_key(name) == key


def test_the_hub_clock_ignores_steps_of_the_wall_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    """The hub's clock starts at the wall clock and then follows a clock nobody can set: a wall-clock
    step of an hour either way while it runs moves it by nothing (B6, B7: TTLs and leases keep their length)."""
    clock = SystemClock()
    real = time.time_ns
    started = clock.now()
    assert abs(started - real() // 1000) < 1_000_000
    for step in (-3600, 3600):
        monkeypatch.setattr(time, "time_ns", lambda step=step: real() + step * 1_000_000_000)
        moved = clock.now() - started
        assert 0 <= moved < 1_000_000, step
    assert SystemClock().now() - clock.now() > 3000 * 1_000_000  # a new clock (a restart) takes up the wall clock


@pytest.mark.parametrize(
    ("micros", "text"),
    [
        (1_767_225_605_000_000, "2026-01-01T00:00:05.000000Z"),
        (-62_135_596_800_000_000, "0001-01-01T00:00:00.000000Z"),
        (-30_641_760_000_000_000, "0999-01-01T00:00:00.000000Z"),
        (253_402_300_799_999_999, "9999-12-31T23:59:59.999999Z"),
    ],
)
def test_rfc3339_writes_four_digit_years(micros: int, text: str) -> None:
    assert rfc3339(micros) == text
