"""The hub's journal keys: the key file, the key derived from the admin token, and rotation.

Unit tests of ``kxm_grpc/server/journal_keys.py``, and a hub restarted on one SQLite file under
three key files: the records sealed under the first key still verify once a second key seals
(rotation), and not once the first key is dropped (``unknown_key``, never ``altered``).
"""

from __future__ import annotations

import dataclasses
import io
import json
from pathlib import Path

import pytest

from kxm_grpc._gen.kxm.v1 import workflow_journal_pb2 as jpb
from kxm_grpc._gen.kxm.v1 import workflow_service_pb2 as pb
from kxm_grpc.client import HubClient
from kxm_grpc.server.app import HubServer
from kxm_grpc.server.journal_keys import derived_keyring, hub_keyring, load_key_file, read_key_file
from kxm_grpc.server.settings import Settings, SettingsError
from tests.conftest import ADMIN_TOKEN
from tests.workflows import call, define

K1, K2 = "11" * 32, "22" * 32


def _file(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "journal-keys"
    path.write_text(text)
    path.chmod(0o600)
    return path


def test_a_key_file_holds_ids_and_hex_secrets_the_first_sealing(tmp_path: Path) -> None:
    """Comments and blank lines are skipped; the first key is current; the others verify."""
    keyring = read_key_file(_file(tmp_path, f"# rotated 2026-12\n\nk2 {K2}\nk1   {K1}\n"))

    assert keyring.current == "k2"
    assert keyring.keys == {"k2": bytes.fromhex(K2), "k1": bytes.fromhex(K1)}


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("", "holds no key"),
        (f"k1 {K1} extra\n", "line 1: expected"),
        ("k1 not-hex\n", "line 1: the secret is not hexadecimal"),
        ("k1 abcd\n", "at least 32 bytes"),
        (f"k1 {K1}\nk1 {K2}\n", "line 2: key id 'k1' is given twice"),
        (f"-bad {K1}\n", "key id '-bad'"),
    ],
)
def test_a_bad_key_file_stops_the_hub_naming_the_line_never_the_secret(tmp_path: Path, text: str, problem: str) -> None:
    with pytest.raises(SettingsError) as refused:
        read_key_file(_file(tmp_path, text))

    assert problem in str(refused.value)
    assert K1 not in str(refused.value) and K2 not in str(refused.value)


def test_without_a_file_the_key_is_derived_from_the_admin_token(tmp_path: Path) -> None:
    """The same token gives the same key on every replica; another token another key and key id."""
    one, again, other = derived_keyring(ADMIN_TOKEN), hub_keyring(None, ADMIN_TOKEN), derived_keyring("x" * 32)
    from_file = read_key_file(_file(tmp_path, f"k1 {K1}\n"))

    assert one == again and one.current.startswith("admin-") and len(one.current) == len("admin-") + 12
    assert other.current != one.current and other.keys[other.current] != one.keys[one.current]
    assert ADMIN_TOKEN.encode() not in one.keys[one.current]
    assert hub_keyring(from_file, ADMIN_TOKEN) is from_file  # a key file wins over the token
    with pytest.raises(SettingsError):
        load_key_file(tmp_path / "missing")


async def test_a_rotated_key_keeps_old_records_verifiable_and_a_dropped_key_is_unknown(tmp_path: Path) -> None:
    """Life 1 seals under k1; life 2 (k2 first, k1 kept) seals under k2 and verifies both; life 3
    (k2 alone) reports the first record's key as unknown."""
    base = Settings(port=0, data_dir=tmp_path / "kxm", admin_token=ADMIN_TOKEN, shutdown_grace=0.5)
    keys_path = tmp_path / "keys"
    lives = [f"k1 {K1}\n", f"k2 {K2}\nk1 {K1}\n", f"k2 {K2}\n"]
    run_id: str | None = None
    sealed: list[str] = []
    verdicts = []
    for text in lives:
        keys_path.write_text(text)
        keys_path.chmod(0o600)
        settings = dataclasses.replace(base, journal_key_file=keys_path)
        server = HubServer(settings)
        await server.start()
        try:
            async with HubClient(server.address, token=ADMIN_TOKEN) as admin:
                if run_id is None:
                    token = (await admin.admin.create_project("alpha")).project_token
                    async with HubClient(server.address, token=token) as agent:
                        identity = await agent.agents.register("coordinator")
                    agent_id, agent_key = identity.agent.id, identity.agent_key
                    await admin.workflows.register_definition(define("plain", stages=("build",)))
                    run_id = (await admin.workflows.start_run("plain", delivery_id="d-1")).run.id
                async with HubClient(server.address, token=token) as coordinator:
                    coordinator.use_agent(agent_id, agent_key)
                    if len(sealed) < 2:
                        recorded = await call(
                            coordinator,
                            "RecordJournal",
                            pb.RecordJournalRequest(
                                run_id=run_id,
                                category=jpb.JOURNAL_CATEGORY_OBSERVATION,
                                area=jpb.IMPROVEMENT_AREA_OTHER,
                                summary=f"life {len(sealed) + 1}",
                            ),
                        )
                        sealed.append(recorded.record.key_id)
                    verdicts.append(
                        (await call(coordinator, "VerifyJournal", pb.VerifyJournalRequest(run_id=run_id))).verdict
                    )
        finally:
            await server.stop()

    assert sealed == ["k1", "k2"]
    assert [(v.intact, v.verified_records, list(v.key_ids)) for v in verdicts[:2]] == [
        (True, 1, ["k1"]),
        (True, 2, ["k1", "k2"]),
    ]
    dropped = verdicts[2]
    assert (dropped.intact, dropped.problem, dropped.breach_sequence, dropped.breach_key_id) == (
        False,
        jpb.JournalVerdict.PROBLEM_UNKNOWN_KEY,
        0,
        "k1",
    )


async def test_a_bad_key_file_stops_the_start_before_the_database_is_touched(tmp_path: Path) -> None:
    """The key file is read before the store opens: a bad one leaves no database behind."""
    settings = Settings(
        port=0,
        data_dir=tmp_path / "kxm",
        admin_token=ADMIN_TOKEN,
        journal_key_file=_file(tmp_path, "k1 abcd\n"),
    )
    server = HubServer(settings)

    with pytest.raises(SettingsError, match="at least 32 bytes"):
        await server.start()

    assert not (tmp_path / "kxm" / "hub.db").exists()


async def test_a_start_with_a_key_the_last_hub_did_not_seal_with_is_logged(
    tmp_path: Path, log_lines: io.StringIO
) -> None:
    """Three starts on one database: k1; then k2 first with k1 kept (a rotation, logged at info);
    then k3 alone (k2's records will not verify here: logged at warning, naming both ids)."""
    keys_path = tmp_path / "keys"
    for text in (f"k1 {K1}\n", f"k2 {K2}\nk1 {K1}\n", f"k3 {'33' * 32}\n"):
        keys_path.write_text(text)
        keys_path.chmod(0o600)
        settings = Settings(port=0, data_dir=tmp_path / "kxm", admin_token=ADMIN_TOKEN, journal_key_file=keys_path)
        server = HubServer(settings)
        await server.start()
        await server.stop()
    events = [json.loads(line) for line in log_lines.getvalue().splitlines() if line.startswith("{")]
    seen = [(e["event"], e["level"], e["previous_key_id"]) for e in events if e["event"] in CHANGES]

    assert seen == [("journal_key_rotated", "info", "k1"), ("journal_key_unknown", "warning", "k2")]
    assert K1 not in log_lines.getvalue() and K2 not in log_lines.getvalue()


CHANGES = {"journal_key_rotated", "journal_key_unknown"}
