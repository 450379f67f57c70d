"""``kxm_grpc.v1`` is the public home of the contract's types; nothing public imports ``kxm_grpc._gen``."""

from __future__ import annotations

import enum
import importlib
import importlib.util
import re
from pathlib import Path
from types import ModuleType

import kxm_grpc.v1 as v1
from kxm_grpc._gen.kxm.v1 import message_service_pb2_grpc, types_pb2

ROOT = Path(__file__).resolve().parents[2]
GENERATED = sorted(path.stem for path in (ROOT / "kxm_grpc" / "_gen" / "kxm" / "v1").glob("*_pb2.py"))


def _generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("kxm_gen_public_types", ROOT / "scripts" / "gen_public_types.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_message_and_enum_has_a_public_name() -> None:
    """Each top-level message of every proto file is ``kxm_grpc.v1.<Name>``, the generated class itself;
    each top-level enum is an IntEnum of the same name with the same values, in the same order."""
    missing = []
    for name in GENERATED:
        module = importlib.import_module(f"kxm_grpc._gen.kxm.v1.{name}")
        for type_name in module.DESCRIPTOR.message_types_by_name:
            if getattr(v1, type_name, None) is not getattr(module, type_name):
                missing.append(f"{name}.{type_name}")
        for type_name in module.DESCRIPTOR.enum_types_by_name:
            public, wrapper = getattr(v1, type_name, None), getattr(module, type_name)
            if not (isinstance(public, type) and issubclass(public, enum.IntEnum)):
                missing.append(f"{name}.{type_name}")
            elif [(member.name, member.value) for member in public] != wrapper.items():
                missing.append(f"{name}.{type_name} (values)")

    assert missing == []


def test_an_enum_field_prints_by_name_through_its_public_enum() -> None:
    """A message's enum field is a bare int (protobuf's runtime); its public enum prints it by name,
    equals it, is accepted by the message, and keeps the generated wrapper's Name/Value/keys/values/items."""
    message = v1.Message(state=v1.MessageState.MESSAGE_STATE_REPLIED)

    state = v1.MessageState(message.state)

    assert message.state == 3 and state == message.state and state is v1.MessageState.MESSAGE_STATE_REPLIED
    assert (str(state), f"{state}", repr(state)) == (
        "MESSAGE_STATE_REPLIED",
        "MESSAGE_STATE_REPLIED",
        "<MessageState.MESSAGE_STATE_REPLIED: 3>",
    )
    # A numeric presentation formats the number, as an int's does; any other the name.
    assert (f"{state:d}", f"{state:03d}", f"{state:x}", f"{state:>22}") == ("3", "003", "3", " MESSAGE_STATE_REPLIED")
    assert v1.Presence.Name(v1.Presence.PRESENCE_ONLINE) == "PRESENCE_ONLINE"
    assert v1.Presence.Value("PRESENCE_ONLINE") == types_pb2.PRESENCE_ONLINE
    assert (v1.Presence.keys(), v1.Presence.values(), v1.Presence.items()) == (
        types_pb2.Presence.keys(),
        types_pb2.Presence.values(),
        types_pb2.Presence.items(),
    )


def test_the_generated_modules_are_reachable_too() -> None:
    """``from kxm_grpc.v1 import types_pb2`` (and the service stubs) work, and ``__all__`` lists exactly the exports."""
    assert v1.types_pb2 is types_pb2
    assert v1.message_service_pb2_grpc is message_service_pb2_grpc
    assert set(GENERATED) <= set(v1.__all__)
    assert v1.__all__ == sorted(v1.__all__)
    # "@py_builtins" and "@pytest_ar": pytest rewrites the asserts of every module in a distribution
    # that registers a pytest11 plugin (the hub's test kit), and that adds these two names.
    assert sorted(name for name in vars(v1) if not name.startswith(("_", "@"))) == v1.__all__


def test_the_module_is_what_the_generator_writes_now() -> None:
    """The drift check: after scripts/gen, run ``python scripts/gen_public_types.py`` and commit."""
    assert (ROOT / "kxm_grpc" / "v1" / "__init__.py").read_text() == _generator().render()


def test_no_example_or_program_for_users_imports_the_private_path() -> None:
    """The Python examples of README and docs, and the Python conformance program, import the types
    from kxm_grpc.v1, never from kxm_grpc._gen."""
    sources = {
        str(path.relative_to(ROOT)): "\n".join(re.findall(r"```python\n(.*?)```", path.read_text(), re.S))
        for path in [ROOT / "README.md", *(ROOT / "docs").glob("*.md")]
    }
    sources["clients/python/conformance.py"] = (ROOT / "clients" / "python" / "conformance.py").read_text()
    offenders = [name for name, code in sources.items() if re.search(r"(from|import)\s+kxm_grpc\._gen", code)]

    assert "from kxm_grpc.v1 import" in sources["README.md"]
    assert offenders == []
