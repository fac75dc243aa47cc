"""The pages around the public API: a player's own tokens and the apps they let in
(/profile/api/), the OAuth consent page (django-oauth-toolkit's, with the scopes in words),
and the developers' guide (/developers/), written from the API's own OpenAPI schema."""

from __future__ import annotations

import re
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db import transaction
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.cache import add_never_cache_headers
from django.utils.html import conditional_escape, escape, format_html
from django.utils.safestring import SafeString, mark_safe
from django.utils.text import slugify
from django.utils.translation import get_language, gettext_noop, pgettext, pgettext_lazy
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST
from oauth2_provider.models import (
    get_access_token_model,
    get_application_model,
    get_grant_model,
    get_refresh_token_model,
    refresh_token_expire_timedelta,
)
from oauth2_provider.views import AuthorizationView

from api.access import LIMITS, WINDOW_SECONDS, Anyone, TokenAuth
from api.forms import TokenForm
from api.models import AccessToken, Scope
from api.tokens import MAX_TOKENS, TokenError, token_create, token_revoke

# The routers' tags, for the catalogue (the schema carries them in English; a tag not named
# here is shown as it is).
TAGS = [
    pgettext_lazy("a part of the API", "Account"),
    pgettext_lazy("a part of the API", "Players"),
    pgettext_lazy("a part of the API", "Games"),
    pgettext_lazy("a part of the API", "Play"),
    pgettext_lazy("a part of the API", "Challenges"),
    pgettext_lazy("a part of the API", "Tournaments"),
    pgettext_lazy("a part of the API", "Bots"),
]
# django-oauth-toolkit's own words on the app form (its fields and choices), which it ships
# no Spanish for: named here so that the site's catalogue carries them.
OAUTH_WORDS = [
    gettext_noop("client ID"),
    gettext_noop("redirect URIs"),
    gettext_noop("Allowed URIs list, space separated"),
    gettext_noop("post logout redirect URIs"),
    gettext_noop("Allowed Post Logout URIs list, space separated"),
    gettext_noop("client type"),
    gettext_noop("authorization grant type"),
    gettext_noop("client secret"),
    gettext_noop("Client secret for authentication"),
    gettext_noop("hash client secret"),
    gettext_noop("algorithm"),
    gettext_noop("allowed origins"),
    gettext_noop("Allowed origins list to enable CORS, space separated"),
    gettext_noop("Confidential"),
    gettext_noop("Public"),
    gettext_noop("Authorization code"),
    gettext_noop("Device Code"),
    gettext_noop("Implicit"),
    gettext_noop("Resource owner password-based"),
    gettext_noop("Client credentials"),
    gettext_noop("OpenID connect hybrid"),
    gettext_noop("No OIDC support"),
    gettext_noop("RSA with SHA-2 256"),
    gettext_noop("HMAC with SHA-2 256"),
    gettext_noop(
        "The client secret is hashed and can no longer be viewed. "
        "To rotate it, enter a new value and copy it before saving; "
        "the original secret cannot be recovered."
    ),
    gettext_noop(
        "Copy and store this secret now. Once saved, it will be hashed and cannot be recovered."
    ),
    gettext_noop(
        "This application stores its client secret unhashed, so the value above "
        "remains usable. Entering a new value replaces it."
    ),
    gettext_noop("Copy and store this secret now. This application stores the secret unhashed."),
]


def _tag(tag: str) -> str:
    return pgettext("a part of the API", tag)


def _t(text: str | None) -> str:
    """A schema's English text in the request's language (gettext("") would be the catalogue's
    header)."""
    return _(text) if text else ""


def scope_labels(values: list[str] | set[str] | frozenset[str]) -> list[dict[str, str]]:
    """Scopes in Scope's order, each with its label in words (an unknown one as it is)."""
    known = [s for s in Scope if s.value in values]
    rows = [{"value": s.value, "label": str(s.label)} for s in known]
    rows += [{"value": v, "label": v} for v in sorted(set(values) - set(Scope.values))]
    return rows


# --- Your API tokens (/profile/api/) ---------------------------------------------------------


def authorized_apps(user: Any) -> list[dict[str, Any]]:
    """The OAuth apps that hold a live token for `user`, one row per app: its name, the scopes
    it was granted, and since when (its oldest live token)."""
    now = timezone.now()
    apps: dict[int, dict[str, Any]] = {}

    def note(application: Any, scopes: list[str], since: Any) -> None:
        row = apps.setdefault(
            application.pk, {"application": application, "scopes": set(), "since": since}
        )
        row["scopes"] |= set(scopes)
        row["since"] = min(row["since"], since)

    access = get_access_token_model().objects.filter(
        user=user, application__isnull=False, expires__gt=now
    )
    for token in access.select_related("application"):
        note(token.application, token.scope.split(), token.created)
    refresh = get_refresh_token_model().objects.filter(
        user=user, application__isnull=False, revoked__isnull=True
    )
    lifetime = refresh_token_expire_timedelta()
    if lifetime is not None:
        refresh = refresh.filter(created__gt=now - lifetime)
    for token in refresh.select_related("application", "access_token"):
        scopes = token.access_token.scope.split() if token.access_token else []
        note(token.application, scopes, token.created)
    rows = sorted(apps.values(), key=lambda row: (row["since"], row["application"].pk))
    for row in rows:
        row["scopes"] = scope_labels(row["scopes"])
    return rows


def _tokens(user: Any) -> list[AccessToken]:
    """The account's tokens, live ones first (newest first), then revoked ones."""
    tokens = list(AccessToken.objects.filter(user=user))
    for token in tokens:
        token.scope_rows = scope_labels(token.scopes)  # type: ignore[attr-defined]
    return sorted(tokens, key=lambda t: t.revoked_at is not None)


def _account(request: HttpRequest) -> Any:
    """The logged-in player as a User, not request.user's lazy wrapper (token_create locks the
    account's row through its class)."""
    user = request.user
    user.is_authenticated  # noqa: B018 (the wrapper is filled on first use)
    return getattr(user, "_wrapped", user)


@login_required
def tokens_page(request: HttpRequest) -> HttpResponse:
    """The player's personal tokens and OAuth apps. A new token's secret is in this POST's
    answer only: never in a URL, the session or a later page."""
    made, secret, status = None, "", 200
    if request.method == "POST":
        form = TokenForm(request.POST)
        if form.is_valid():
            try:
                made, secret = token_create(
                    user=_account(request),
                    name=form.cleaned_data["name"],
                    scopes=form.cleaned_data["scopes"],
                )
            except TokenError as exc:
                form.add_token_error(exc)
            else:
                form = TokenForm()
        if form.errors:
            status = 400
    else:
        form = TokenForm()
    context = {
        "form": form,
        "made": made,
        "secret": secret,
        "tokens": _tokens(request.user),
        "apps": authorized_apps(request.user),
        "max_tokens": MAX_TOKENS,
    }
    response = render(request, "api/tokens.html", context, status=status)
    add_never_cache_headers(response)  # no-store: the page may hold a secret
    return response


@login_required
@require_POST
def token_revoke_view(request: HttpRequest, token_id: int) -> HttpResponse:
    try:
        token = token_revoke(user=request.user, token_id=token_id)
    except TokenError as exc:
        raise Http404(exc.message) from exc
    messages.success(
        request, _("The token “%(name)s” is revoked: it no longer works.") % {"name": token.name}
    )
    return redirect("api_tokens")


@login_required
@require_POST
def app_revoke(request: HttpRequest, app_id: int) -> HttpResponse:
    """Take back everything one OAuth app holds for this player: its refresh and access
    tokens, and any code not yet exchanged."""
    application = get_application_model().objects.filter(pk=app_id).first()
    if application is None:
        raise Http404
    user = request.user
    refresh = get_refresh_token_model().objects.filter(
        user=user, application=application, revoked__isnull=True
    )
    access = get_access_token_model().objects.filter(user=user, application=application)
    grants = get_grant_model().objects.filter(user=user, application=application)
    if not (refresh.exists() or access.exists() or grants.exists()):
        raise Http404
    with transaction.atomic():
        for refresh_token in refresh:
            refresh_token.revoke()
        for access_token in access:  # those with no refresh token (or left by one)
            access_token.revoke()
        grants.delete()
    messages.success(
        request,
        _("%(app)s no longer has access to your account.") % {"app": application.name},
    )
    return redirect("api_tokens")


# --- The OAuth consent page --------------------------------------------------------------------


class ConsentView(AuthorizationView):
    """django-oauth-toolkit's authorization page, with the scopes asked for in our own words
    (api.models.Scope's labels, translated), not the settings' English descriptions."""

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        context = super().get_context_data(**kwargs)
        scopes = kwargs.get("scopes")
        if scopes is None:
            form = context.get("form")
            scopes = str(form["scope"].value() or "").split() if form is not None else []
        context["scope_labels"] = scope_labels(list(scopes))
        return context


# --- The developers' guide (/developers/) -------------------------------------------------------

NDJSON = "application/x-ndjson"
METHODS = ("get", "post", "put", "patch", "delete")
_GUIDES: dict[str, dict[str, Any]] = {}


def _refusal_words() -> dict[int, str]:
    return {
        400: _("the request is not valid"),
        401: _("no token, or a bad one"),
        403: _("not allowed: a missing scope, or the account may not"),
        404: _("no such thing, or not yours to see"),
        409: _("the game's state refused it (a stale version, not your turn, ...)"),
        429: _("over the rate limit"),
    }


def _ticks(text: str) -> SafeString:
    """Text with `code` in backticks shown as code."""
    parts = re.split(r"`([^`]+)`", str(text))
    out = []
    for i, part in enumerate(parts):
        out.append(format_html("<code>{}</code>", part) if i % 2 else escape(part))
    return mark_safe("".join(out))


def _join(parts: list[SafeString], word: str) -> SafeString:
    return mark_safe(conditional_escape(word).join(parts))


def _ref_name(ref: str) -> str:
    return ref.rsplit("/", 1)[-1]


def _shape_id(name: str) -> str:
    return "shape-" + (slugify(name) or "x")


class _Writer:
    """Turns one OpenAPI schema into what the guide's template shows, noting each shape (a
    component) it links to, so that the guide lists those shapes too."""

    def __init__(self, components: dict[str, Any]) -> None:
        self.components = components
        self.linked: set[str] = set()

    def type_of(self, schema: Any, *, drop_null: bool = False) -> SafeString:
        if not isinstance(schema, dict) or not schema:
            return escape(_("any"))
        if "$ref" in schema:
            name = _ref_name(schema["$ref"])
            if name not in self.components:
                return escape(name)
            self.linked.add(name)
            return format_html('<a href="#{}">{}</a>', _shape_id(name), name)
        for key in ("anyOf", "oneOf"):
            if key in schema:
                options = [s for s in schema[key] if not (drop_null and s.get("type") == "null")]
                return _join([self.type_of(s) for s in options], _(" or "))
        if "allOf" in schema and len(schema["allOf"]) == 1:
            return self.type_of(schema["allOf"][0])
        kind = schema.get("type")
        if isinstance(kind, list):
            kinds = [k for k in kind if not (drop_null and k == "null")]
            return _join([self.type_of({**schema, "type": k}) for k in kinds], _(" or "))
        if kind == "array":
            words = conditional_escape(_("array of %(items)s"))
            return mark_safe(words % {"items": self.type_of(schema.get("items"))})
        if kind == "object":
            more = schema.get("additionalProperties")
            if isinstance(more, dict) and more:
                words = conditional_escape(_("object of %(values)s"))
                return mark_safe(words % {"values": self.type_of(more)})
            return escape(_("object"))
        if kind is None:
            return escape(_("any"))
        text = escape(kind)
        if schema.get("format"):
            text = format_html("{} ({})", kind, schema["format"])
        if schema.get("enum"):
            values = ", ".join(str(v) for v in schema["enum"])
            text = format_html("{}: {}", text, _("one of %(values)s") % {"values": values})
        return text

    def resolve(self, schema: Any) -> dict[str, Any]:
        if isinstance(schema, dict) and "$ref" in schema:
            found = self.components.get(_ref_name(schema["$ref"]))
            return found if isinstance(found, dict) else {}
        return schema if isinstance(schema, dict) else {}

    def fields(self, schema: Any) -> list[dict[str, Any]]:
        schema = self.resolve(schema)
        required = set(schema.get("required", []))
        rows = []
        for name, prop in (schema.get("properties") or {}).items():
            rows.append(
                {
                    "name": name,
                    "type": self.type_of(prop),
                    "required": name in required,
                    "description": _ticks(_t(prop.get("description"))),
                }
            )
        return rows

    def body(self, schema: Any) -> dict[str, Any]:
        """What an answer (or a body) holds: its type, and its fields when it is an object or
        a list of objects."""
        shape: dict[str, Any] = {"type": self.type_of(schema), "fields": [], "name": ""}
        target = schema
        if isinstance(schema, dict) and schema.get("type") == "array":
            target = schema.get("items")
            shape["list"] = True
        if isinstance(target, dict) and "$ref" in target:
            shape["name"] = _ref_name(target["$ref"])
        shape["fields"] = self.fields(target)
        return shape


def _access_by_operation() -> dict[str, dict[str, Any]]:
    """Each operation's scope and whether it may be called with no token, from its route's
    auth (the schema says only "a bearer token")."""
    from api.site import api

    found: dict[str, dict[str, Any]] = {}
    try:
        routers = api._get_bound_routers()
    except Exception:  # a ninja without it: the guide says less, and still renders
        return found
    for bound in routers:
        for path_view in bound.path_operations.values():
            for operation in path_view.operations:
                op_id = operation.operation_id or api.get_openapi_operation_id(operation)
                auth = getattr(operation, "auth_callbacks", None) or []
                tokens = [a for a in auth if isinstance(a, TokenAuth)]
                found[op_id] = {
                    "token": bool(tokens),
                    "scope": tokens[0].scope if tokens else None,
                    "public": any(isinstance(a, Anyone) for a in auth) or not auth,
                }
    return found


def _scope_of(op: dict[str, Any], access: dict[str, Any]) -> dict[str, Any]:
    """Who may call an operation: `scope` (None: any token), `public` (no token needed)."""
    named = [
        name for entry in op.get("security") or [] for names in entry.values() for name in names
    ]
    scope = named[0] if named else access.get("scope")
    row = {
        "scope": scope,
        "label": str(Scope(scope).label) if scope in Scope.values else scope,
        "public": bool(access.get("public")) or not op.get("security"),
        "token": bool(access.get("token", op.get("security"))),
    }
    return row


def _operation(
    path: str, method: str, op: dict[str, Any], writer: _Writer, access: dict[str, Any]
) -> dict[str, Any]:
    op_id = op.get("operationId") or f"{method}-{path}"
    params = []
    for param in op.get("parameters") or []:
        schema = param.get("schema") or {}
        limits = []
        if "default" in schema and schema["default"] is not None:
            limits.append(_("default %(value)s") % {"value": schema["default"]})
        if "minimum" in schema and "maximum" in schema:
            limits.append(
                _("from %(low)s to %(high)s")
                % {"low": schema["minimum"], "high": schema["maximum"]}
            )
        params.append(
            {
                "name": param.get("name", ""),
                "where": {"path": _("path"), "query": _("query"), "header": _("header")}.get(
                    param.get("in", ""), param.get("in", "")
                ),
                "required": bool(param.get("required")),
                "type": writer.type_of(schema, drop_null=True),
                "limits": ", ".join(limits),
                "description": _ticks(_t(param.get("description") or schema.get("description"))),
            }
        )
    body = None
    content = (op.get("requestBody") or {}).get("content") or {}
    if content:
        kind, media = next(iter(content.items()))
        body = {"kind": kind, **writer.body(media.get("schema"))}
    answers, refusals = [], []
    for status, response in sorted((op.get("responses") or {}).items(), key=lambda i: str(i[0])):
        code = int(status) if str(status).isdigit() else 0
        if code >= 400:
            refusals.append(code)
            continue
        content = response.get("content") or {}
        description = response.get("description") or ""
        answer: dict[str, Any] = {
            "status": status,
            "description": _ticks(_t(description)) if description != "OK" else "",
        }
        if NDJSON in content:
            answer.update(kind="ndjson", **writer.body(content[NDJSON].get("schema")))
        elif "text/plain" in content:
            answer.update(kind="text", fields=[])
        elif "application/json" in content:
            answer.update(kind="json", **writer.body(content["application/json"].get("schema")))
        else:
            answer.update(kind="none", fields=[])
        answers.append(answer)
    words = _refusal_words()
    return {
        "id": "op-" + slugify(op_id),
        "method": method.upper(),
        "path": path,
        "summary": _t(op.get("summary")),
        "description": _ticks(_t(op.get("description"))),
        "access": _scope_of(op, access),
        "params": params,
        "body": body,
        "answers": answers,
        "refusals": [{"code": c, "words": words.get(c, "")} for c in refusals],
    }


def api_guide() -> dict[str, Any]:
    """The guide's endpoints (grouped by tag, in the schema's order) and the shapes they use,
    in the active language."""
    from api.site import api

    schema = api.get_openapi_schema()
    components = (schema.get("components") or {}).get("schemas") or {}
    writer = _Writer(components)
    access = _access_by_operation()
    groups: dict[str, list[dict[str, Any]]] = {}
    for path, item in (schema.get("paths") or {}).items():
        for method, op in item.items():
            if method not in METHODS or not isinstance(op, dict):
                continue
            tag = (op.get("tags") or ["API"])[0]
            row = _operation(path, method, op, writer, access.get(op.get("operationId", ""), {}))
            groups.setdefault(tag, []).append(row)
    # Shapes linked from shapes, until none is new.
    shapes: dict[str, dict[str, Any]] = {}
    while pending := sorted(writer.linked - set(shapes)):
        for name in pending:
            found = components.get(name) or {}
            shapes[name] = {
                "name": name,
                "id": _shape_id(name),
                "description": _ticks(_t(found.get("description"))),
                "fields": writer.fields(found),
                "type": writer.type_of(found) if not found.get("properties") else "",
            }
    return {
        "groups": [
            {"tag": _tag(tag), "id": "tag-" + (slugify(tag) or "api"), "operations": ops}
            for tag, ops in groups.items()
        ],
        "shapes": [shapes[name] for name in sorted(shapes)],
        "problem": writer.fields(components["Problem"]) if "Problem" in components else [],
        "paths": sorted(schema.get("paths") or {}),
    }


def _limits() -> list[dict[str, Any]]:
    rows = []
    for bucket, limit in LIMITS.items():
        if bucket in Scope.values:
            what = _("Requests with the %(scope)s scope, per account") % {"scope": bucket}
        elif bucket == "anonymous":
            what = _("Requests with no token, per address")
        else:
            what = bucket
        rows.append({"bucket": bucket, "limit": limit, "what": what})
    return rows


def developers(request: HttpRequest) -> HttpResponse:
    """The API guide, for anyone (no login): the schema in words, in the page's language."""
    language = get_language() or "en"
    guide = _GUIDES.get(language)
    if guide is None:
        guide = _GUIDES[language] = api_guide()
    context = {
        "guide": guide,
        "limits": _limits(),
        "window": WINDOW_SECONDS,
        "scopes": scope_labels(Scope.values),
        "schema_url": reverse("api:openapi-json"),
        "max_tokens": MAX_TOKENS,
    }
    return render(request, "api/developers.html", context)
