"""The two kinds of workflow definition one registry holds, and how a document says which it is.

A stage workflow (the original's coordinator-driven shape, ``definitions``) has no ``schema``
field; a step workflow (hub-driven, ``plans``) says ``schema: kxm.workflow.v1``. A gate
registry (``kxm.gate-registry.v1``) is no definition but is registered beside them, so the
decoder that tells documents apart knows it too. Pure rules: no I/O.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping

from kxm_grpc.domain.workflows.plans.gates import REGISTRY_SCHEMA
from kxm_grpc.domain.workflows.plans.model import SCHEMA as STEP_SCHEMA


class DefinitionKind(enum.Enum):
    """What a stored definition is, and so what can start its runs."""

    STAGES = "stages"
    """Runs start from StartWorkflowRun or a signed start webhook; a coordinator checkpoints them."""
    STEPS = "steps"
    """Runs are driven by the hub step by step (``kxm.workflow.v1``); they start with StartWorkflowRun."""


class DocumentKind(enum.Enum):
    """What an operator's document holds, by its ``schema`` field."""

    STAGE_WORKFLOW = "stage-workflow"
    STEP_WORKFLOW = "step-workflow"
    GATE_REGISTRY = "gate-registry"


def document_kind(raw: object) -> DocumentKind:
    """The kind of a decoded document: a mapping whose ``schema`` is ``kxm.workflow.v1`` is a step
    workflow, ``kxm.gate-registry.v1`` a gate registry; anything else (no ``schema``, a list of
    definitions, a value that is no mapping) is read as stage definitions, whose loader reports
    what is wrong with it."""
    if isinstance(raw, Mapping):
        schema = raw.get("schema")
        if schema == STEP_SCHEMA:
            return DocumentKind.STEP_WORKFLOW
        if schema == REGISTRY_SCHEMA:
            return DocumentKind.GATE_REGISTRY
    return DocumentKind.STAGE_WORKFLOW


__all__ = ["STEP_SCHEMA", "DefinitionKind", "DocumentKind", "document_kind"]
