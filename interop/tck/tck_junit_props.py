"""pytest plugin: record each TCK item's requirement level and transport.

Loaded by run.sh with ``-p tck_junit_props``. It adds two junit XML
properties to every collected item, so summarize.py can group outcomes
without importing the kit:

* ``tck_level``: ``must``, ``should`` or ``may`` (from the item's markers),
  ``unmarked`` when none is present.
* ``tck_transport``: ``jsonrpc``, ``http_json`` or ``grpc`` (from the
  ``transport`` parameter, else from a transport marker, the same rule the
  kit's conftest uses), ``agnostic`` otherwise.

The properties are set at collection time, so items skipped in setup carry
them too. Standard library and pytest only.
"""

from __future__ import annotations

_LEVELS = ("must", "should", "may")
_TRANSPORTS = ("jsonrpc", "http_json", "grpc")


def _level(item) -> str:
    for name in _LEVELS:
        if item.get_closest_marker(name) is not None:
            return name
    return "unmarked"


def _transport(item) -> str:
    callspec = getattr(item, "callspec", None)
    if callspec is not None:
        value = callspec.params.get("transport")
        if isinstance(value, str) and value:
            return value
    for name in _TRANSPORTS:
        if item.get_closest_marker(name) is not None:
            return name
    return "agnostic"


def pytest_collection_modifyitems(session, config, items):
    for item in items:
        item.user_properties.append(("tck_level", _level(item)))
        item.user_properties.append(("tck_transport", _transport(item)))
