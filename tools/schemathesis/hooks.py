"""Schemathesis hooks for scripts/schemathesis.sh: the gateway's stateful links, and the check
that every rejection is the JSON error body.

Links. The gateway keeps a flow's state (a pending login, a password recovery, a registration)
in an httpOnly cookie, and Schemathesis drops a response's cookies before the next request, so
without links no second step of a flow is ever reached with a live flow. The links carry the
cookie from the step that sets it to the steps that read it, and the ids a list answers into the
bodies that take one. They live here, not in the served document: a standard OpenAPI runtime
expression cannot pick one cookie out of a `Set-Cookie` header (the `#regex:` extractor is
Schemathesis's own), and the cookie's name differs between a TLS deployment (`__Host-mc_…`) and
the standalone binary (`mc_…`), so such a link would be wrong for every other reader.

Check. `rejection_is_json_error_body`: every 4xx and 5xx answer, documented or not, is
`application/json` and fits the document's `Error` schema (`code` one of `ErrorCode`, a Spanish
`message`), so the web app can always show what went wrong.
"""

from __future__ import annotations

import json
from typing import Any

import jsonschema_rs
import schemathesis


def _cookie(name: str) -> str:
    """The value of cookie `name` from the first `Set-Cookie` of the source answer."""
    return f"$response.header.Set-Cookie#regex:^{name}=([^;]+)"


def _links_with_cookie(name: str, targets: list[str]) -> dict[str, Any]:
    return {
        f"{target}With{name}": {"operationId": target, "parameters": {f"cookie.{name}": _cookie(name)}}
        for target in targets
    }


# (source path, method, status) -> links. Every source sets exactly one cookie on that status.
LINKS: dict[tuple[str, str, str], dict[str, Any]] = {
    # The password step sets the pending login's challenge cookie; the code step and the resend
    # read it (the code itself is mailed, so the code step answers ERR_OTP_INVALID, with the
    # challenge's attempt counter behind it).
    ("/api/login", "post", "200"): _links_with_cookie("mc_challenge", ["validate_otp", "resend_otp"]),
    # Recovery: the reset cookie, read by the resend and the reset.
    ("/api/password-recovery", "post", "200"): _links_with_cookie("mc_reset", ["resend", "reset"]),
    # Registration: the flow cookie, read by every later step; each accepted step sets it again.
    ("/api/registration", "post", "201"): _links_with_cookie(
        "mc_registration", ["getRegistration", "personal_data", "complete", "cancel"]
    ),
    ("/api/registration/personal-data", "put", "200"): _links_with_cookie(
        "mc_registration", ["getRegistration", "complete", "personal_data", "cancel"]
    ),
    # The ids a list answers, into the bodies that take one (merged into a generated body).
    ("/api/profile/genders", "get", "200"): {
        "personalDataWithGender": {"operationId": "personal_data", "requestBody": {"genderId": "$response.body#/0/id"}},
        "profileWithGender": {"operationId": "update", "requestBody": {"gender_id": "$response.body#/0/id"}},
    },
    ("/api/unsubscribe/reasons", "get", "200"): {
        "unsubscribeWithReason": {
            "operationId": "unsubscribe",
            "requestBody": {"reasonId": "$response.body#/reasons/0/id"},
        },
    },
}


@schemathesis.hook
def before_load_schema(context: schemathesis.HookContext, raw_schema: dict[str, Any]) -> None:
    """Adds LINKS to the served document, failing loudly when one no longer fits it."""
    operation_ids = {
        operation.get("operationId")
        for item in raw_schema["paths"].values()
        for operation in item.values()
        if isinstance(operation, dict)
    }
    for (path, method, status), links in LINKS.items():
        try:
            response = raw_schema["paths"][path][method]["responses"][status]
        except KeyError:
            raise AssertionError(f"link source {method.upper()} {path} {status} is not in the document") from None
        for name, link in links.items():
            if link["operationId"] not in operation_ids:
                raise AssertionError(f"link {name}: no operation {link['operationId']} in the document")
        response.setdefault("links", {}).update(links)


_ERROR_VALIDATORS: dict[int, Any] = {}


def _error_validator(raw_schema: dict[str, Any]) -> Any:
    """A validator of the document's `Error` schema (with the components it refers to)."""
    key = id(raw_schema)
    if key not in _ERROR_VALIDATORS:
        document = {"$ref": "#/components/schemas/Error", "components": raw_schema["components"]}
        _ERROR_VALIDATORS[key] = jsonschema_rs.validator_for(document)
    return _ERROR_VALIDATORS[key]


@schemathesis.check
def rejection_is_json_error_body(
    ctx: schemathesis.CheckContext, response: schemathesis.Response, case: schemathesis.Case
) -> bool | None:
    """Every 4xx/5xx answer is the JSON error body of the document's `Error` schema."""
    if response.status_code < 400:
        return None
    content_type = (response.headers.get("content-type") or [""])[0]
    if content_type.split(";")[0].strip().lower() != "application/json":
        raise AssertionError(
            f"{response.status_code} answered with content type {content_type or '(none)'}, not the JSON error body"
        )
    try:
        body = json.loads(response.content)
    except ValueError as err:
        raise AssertionError(f"{response.status_code} answered a body that is not JSON: {err}") from None
    errors = [error.message for error in _error_validator(case.operation.schema.raw_schema).iter_errors(body)]
    if errors:
        raise AssertionError(f"{response.status_code} answered a body outside the Error schema: {'; '.join(errors)}")
    return True
