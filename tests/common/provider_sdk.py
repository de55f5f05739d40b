"""Checks provider request and reply bodies with the providers' official SDK types.

The scripted model server (tests/common/model_server.rs) starts this once per test binary and
sends it one JSON object a line on stdin; it answers one line on stdout, `{"ok": true}` or
`{"ok": false, "error": "..."}`. A line is one of:

    {"check": "request", "path": "/v1/chat/completions", "body": {...}}
    {"check": "reply", "path": "...", "body": {...}}     a 200 reply body
    {"check": "event", "path": "...", "data": "..."}     one streamed event's data
    {"check": "ping"}                                    answered once the imports are done

The wire format is read from the request path. Unknown keys are refused at every level: the
request TypedDicts are validated with `extra="forbid"` (nested TypedDicts inherit it), and the
reply models, which allow extras, are walked for any. Where a request asks for OpenAI's strict
mode, its schema is checked against strict mode's rules too.
"""

import json
import os
import sys

import pydantic
from pydantic import ConfigDict, TypeAdapter, ValidationError

import anthropic.types as anthropic_types
from anthropic.types import message_create_params as anthropic_params
from google.genai import types as genai
from openai.types import responses as openai_responses
from openai.types.chat import ChatCompletion, ChatCompletionChunk
from openai.types.chat import completion_create_params as chat_params
from openai.types.responses import response_create_params as responses_params


def forbidding(typed_dict):
    """A validator of one TypedDict refusing unknown keys at every level.

    pydantic refuses a config for a TypedDict itself, so the config goes on a one-item list;
    nested TypedDicts without a config of their own inherit it.
    """
    adapter = TypeAdapter(list[typed_dict], config=ConfigDict(extra="forbid"))

    def validate(body):
        return exhaust(adapter.validate_python([body])[0], ())

    return validate


def exhaust(value, path):
    """Runs the validation pydantic defers: an `Iterable[...]` field is checked only when read."""
    if type(value).__name__ == "ValidatorIterator":
        items = []
        try:
            for item in value:
                items.append(item)
        except ValidationError as error:
            raise Refused(describe(error, path)) from None
        return [exhaust(item, path + (i,)) for i, item in enumerate(items)]
    if isinstance(value, pydantic.BaseModel):
        # Some unions also take the SDK's reply models, which keep unknown keys as extras.
        no_extras(value, ".".join(str(part) for part in path))
        return value
    if isinstance(value, dict):
        return {key: exhaust(item, path + (key,)) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [exhaust(item, path + (i,)) for i, item in enumerate(value)]
    return value


class Refused(Exception):
    """A body the SDK types refuse, with the reason."""


def describe(error, prefix=()):
    """The deepest few errors of a validation error: in a union, the errors of the branches whose
    `type` or `role` matched, and of those the branch that came closest."""
    errors = error.errors()
    mismatched = {
        e["loc"][:-1] for e in errors if e["type"] == "literal_error" and e["loc"][-1:] in (("type",), ("role",))
    }
    matching = [e for e in errors if not any(e["loc"][: len(m)] == m for m in mismatched)]
    errors = sorted(matching or errors, key=lambda e: -len(e["loc"]))
    best = len(errors[0]["loc"]) if errors else 0
    lines = []
    for item in errors:
        if len(item["loc"]) < best or len(lines) == 3:
            break
        loc = ".".join(str(part) for part in prefix + tuple(item["loc"]))
        lines.append(f"{loc}: {item['msg']} (got {json.dumps(item.get('input'), default=str)[:200]})")
    return "; ".join(lines)


CHAT = {
    False: forbidding(chat_params.CompletionCreateParamsNonStreaming),
    True: forbidding(chat_params.CompletionCreateParamsStreaming),
}
RESPONSES = {
    False: forbidding(responses_params.ResponseCreateParamsNonStreaming),
    True: forbidding(responses_params.ResponseCreateParamsStreaming),
}
MESSAGES = {
    False: forbidding(anthropic_params.MessageCreateParamsNonStreaming),
    True: forbidding(anthropic_params.MessageCreateParamsStreaming),
}

GEMINI_FIELDS = {
    "contents": TypeAdapter(list[genai.Content]),
    "tools": TypeAdapter(list[genai.Tool]),
    "systemInstruction": TypeAdapter(genai.Content),
    "generationConfig": TypeAdapter(genai.GenerationConfig),
    "toolConfig": TypeAdapter(genai.ToolConfig),
}


def check_gemini_request(body):
    if not isinstance(body, dict):
        raise Refused("the body is not a JSON object")
    for key, value in body.items():
        adapter = GEMINI_FIELDS.get(key)
        if adapter is None:
            raise Refused(f"{key}: not a field of a generateContent request")
        try:
            adapter.validate_python(value)
        except ValidationError as error:
            raise Refused(describe(error, (key,))) from None
    if "contents" not in body:
        raise Refused("contents: missing")


# OpenAI strict mode: https://platform.openai.com/docs/guides/structured-outputs#supported-schemas
STRICT_KEYWORDS = {
    "type", "properties", "required", "additionalProperties", "items", "enum", "const", "anyOf",
    "$ref", "$defs", "definitions", "description", "title", "pattern", "format", "multipleOf",
    "maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum", "minItems", "maxItems",
}
STRICT_FORMATS = {
    "date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid",
}


def check_strict(schema, where):
    if not isinstance(schema, dict):
        raise Refused(f"{where}: a strict schema must be an object")
    if "anyOf" in schema:
        raise Refused(f"{where}: the root of a strict schema must not be `anyOf`")
    if schema.get("type") != "object":
        raise Refused(f"{where}: the root of a strict schema must be `type: object`")
    strict_node(schema, where)


def strict_node(node, where):
    if not isinstance(node, dict):
        raise Refused(f"{where}: strict mode needs a schema object here, got {json.dumps(node)}")
    for key in node:
        if key not in STRICT_KEYWORDS:
            raise Refused(f"{where}: `{key}` is not supported in strict mode")
    if "format" in node and node["format"] not in STRICT_FORMATS:
        raise Refused(f"{where}: format {node['format']!r} is not supported in strict mode")
    types = node.get("type")
    types = types if isinstance(types, list) else [types]
    if "object" in types or "properties" in node:
        if node.get("additionalProperties") is not False:
            raise Refused(f"{where}: strict mode needs `additionalProperties: false`")
        properties = node.get("properties", {})
        missing = [name for name in properties if name not in node.get("required", [])]
        if missing:
            raise Refused(f"{where}: strict mode needs every property required; not {missing}")
        for name, sub in properties.items():
            strict_node(sub, f"{where}.properties.{name}")
    if "items" in node:
        strict_node(node["items"], f"{where}.items")
    for i, branch in enumerate(node.get("anyOf", [])):
        strict_node(branch, f"{where}.anyOf[{i}]")
    for defs in ("$defs", "definitions"):
        for name, sub in node.get(defs, {}).items():
            strict_node(sub, f"{where}.{defs}.{name}")


def check_chat_strict(body):
    for i, tool in enumerate(body.get("tools") or []):
        function = tool.get("function") or {}
        if function.get("strict") is True:
            check_strict(function.get("parameters"), f"tools.{i}.function.parameters")
    response_format = body.get("response_format") or {}
    schema = response_format.get("json_schema") or {}
    if response_format.get("type") == "json_schema" and schema.get("strict") is True:
        check_strict(schema.get("schema"), "response_format.json_schema.schema")


def check_responses_strict(body):
    for i, tool in enumerate(body.get("tools") or []):
        if tool.get("type") == "function" and tool.get("strict") is True:
            check_strict(tool.get("parameters"), f"tools.{i}.parameters")
    text_format = (body.get("text") or {}).get("format") or {}
    if text_format.get("type") == "json_schema" and text_format.get("strict") is True:
        check_strict(text_format.get("schema"), "text.format.schema")


def validated(validate, body):
    try:
        validate(body)
    except ValidationError as error:
        raise Refused(describe(error)) from None


def check_request(api, body):
    if not isinstance(body, dict):
        raise Refused("the body is not a JSON object")
    stream = body.get("stream") is True
    if api == "chat":
        validated(CHAT[stream], body)
        check_chat_strict(body)
    elif api == "responses":
        validated(RESPONSES[stream], body)
        check_responses_strict(body)
    elif api == "messages":
        validated(MESSAGES[stream], body)
    else:
        check_gemini_request(body)


REPLIES = {
    "chat": TypeAdapter(ChatCompletion),
    "responses": TypeAdapter(openai_responses.Response),
    "messages": TypeAdapter(anthropic_types.Message),
    "gemini": TypeAdapter(genai.GenerateContentResponse),
}
EVENTS = {
    "chat": TypeAdapter(ChatCompletionChunk),
    "responses": TypeAdapter(openai_responses.ResponseStreamEvent),
    "messages": TypeAdapter(anthropic_types.RawMessageStreamEvent),
    "gemini": TypeAdapter(genai.GenerateContentResponse),
}
# Events the SDKs read outside their event unions: Anthropic's keep-alive and error events.
ANTHROPIC_ERROR = TypeAdapter(anthropic_types.ErrorResponse)


def check_model(adapter, body):
    try:
        value = adapter.validate_python(body)
    except ValidationError as error:
        raise Refused(describe(error)) from None
    no_extras(value, "")


def no_extras(value, where):
    """Refuses any key a response model kept as an extra (they allow extras; providers send none)."""
    if isinstance(value, pydantic.BaseModel):
        extra = value.__pydantic_extra__ or {}
        if extra:
            names = ", ".join(sorted(extra))
            raise Refused(f"{where or 'body'}: not a field of {type(value).__name__}: {names}")
        for name in type(value).model_fields:
            no_extras(getattr(value, name), f"{where}.{name}" if where else name)
    elif isinstance(value, dict):
        for key, item in value.items():
            no_extras(item, f"{where}.{key}")
    elif isinstance(value, (list, tuple)):
        for i, item in enumerate(value):
            no_extras(item, f"{where}.{i}")


def check_event(api, data):
    if api == "chat" and data == "[DONE]":
        return
    try:
        event = json.loads(data)
    except json.JSONDecodeError as error:
        raise Refused(f"the event's data is not JSON: {error}") from None
    if api == "messages" and isinstance(event, dict) and event.get("type") == "ping":
        if set(event) != {"type"}:
            raise Refused("a ping event has only `type`")
        return
    if api == "messages" and isinstance(event, dict) and event.get("type") == "error":
        check_model(ANTHROPIC_ERROR, event)
        return
    check_model(EVENTS[api], event)


def api_of(path):
    """The wire format of a request, from its path."""
    path = path.split("?", 1)[0]
    if path.endswith("/chat/completions"):
        return "chat"
    if path.endswith("/responses"):
        return "responses"
    if path.endswith("/messages"):
        return "messages"
    if path.endswith(":generateContent") or path.endswith(":streamGenerateContent"):
        return "gemini"
    raise Refused(f"no provider's wire format has the path {path}")


def check(line):
    kind = line["check"]
    if kind == "ping":
        return
    api = api_of(line["path"])
    if kind == "request":
        check_request(api, line["body"])
    elif kind == "reply":
        check_model(REPLIES[api], line["body"])
    elif kind == "event":
        check_event(api, line["data"])
    else:
        raise Refused(f"unknown check {kind!r}")


def main():
    # TOOLKIT_SDK_TALLY names a file that gets a line per check (`request ok`, `event refused`),
    # to count what a test run checked.
    tally = os.environ.get("TOOLKIT_SDK_TALLY")
    for raw in sys.stdin:
        line = {}
        try:
            line = json.loads(raw)
            check(line)
            answer = {"ok": True}
        except Refused as refused:
            answer = {"ok": False, "error": str(refused)}
        except Exception as error:  # a bug here must not hang the tests
            answer = {"ok": False, "error": f"the validator failed: {error!r}"}
        if tally:
            with open(tally, "a") as out:
                verdict = "ok" if answer["ok"] else "refused"
                out.write(f"{line.get('check')} {verdict} {line.get('path')}\n")
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
