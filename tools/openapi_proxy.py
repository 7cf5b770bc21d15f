#!/usr/bin/env python3
"""A validating HTTP proxy built from a provider's OpenAPI spec (a developer tool).

    tools/openapi_proxy.py --spec ../shared/provider-apis/runpod-rest-v2/openapi.json \
        --upstream http://127.0.0.1:8700/runpod --listen 127.0.0.1:0 \
        --log violations.jsonl --summary summary.json [--defects tools/openapi_spec_defects.json]

Prints "listening on http://HOST:PORT" (then flushes) and forwards every request to the upstream
(burst-fakecloud's emulator of that provider: point the provider's base_url at the proxy). Each
request is matched to the spec's path template + method (after the servers' base path) and its
path and query parameters and JSON body are validated against the spec; each response's status
code and JSON body likewise. Every violation is one JSON line in --log:

    {"direction": "request"|"response", "method", "path" (as sent, with query),
     "operation" (the spec's template, or null), "what", "where", "status"}

At exit (SIGINT/SIGTERM) a summary goes to --summary (JSON) and stderr: calls per operation,
request and response violations, and the distinct violations with their counts.

Schemas: $ref resolved anywhere in the document; OpenAPI 3.1 schemas are JSON Schema 2020-12
(type arrays, additionalProperties and unevaluatedProperties exactly as written); 3.0 schemas are
checked as draft 4 with `nullable: true` adding null (honoured in 3.1 documents too, where some
specs still write it). `format` is an annotation (not checked). A path the spec has only without
the request's trailing slash is matched to it and reported once per call as a violation.
Needs python3-jsonschema (>= 4.18, with referencing) and python3-yaml for YAML specs.
"""

import argparse
import collections
import http.client
import http.server
import json
import re
import signal
import socketserver
import sys
import threading
import urllib.parse

import jsonschema
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT4, DRAFT202012

BASE = "urn:openapi"
METHODS = ("get", "put", "post", "delete", "patch", "head", "options", "trace")
HOP_HEADERS = {"connection", "keep-alive", "transfer-encoding", "te", "upgrade",
               "proxy-authorization", "proxy-authenticate", "trailer", "content-length", "host",
               "expect", "accept-encoding"}  # the proxy reads bodies: ask for them plain


def load_spec(path):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    if path.endswith((".yaml", ".yml")):
        import yaml  # only for YAML specs
        return yaml.safe_load(text)
    return json.loads(text)


def prepare(node, nullable_to_type):
    """Absolute $refs (so any subschema validates on its own) and `nullable` as a type."""
    if isinstance(node, list):
        return [prepare(x, nullable_to_type) for x in node]
    if not isinstance(node, dict):
        return node
    out = {k: prepare(v, nullable_to_type) for k, v in node.items()}
    ref = out.get("$ref")
    if isinstance(ref, str) and ref.startswith("#"):
        out["$ref"] = BASE + ref
    if nullable_to_type and out.get("nullable") is True:
        t = out.get("type")
        if isinstance(t, str):
            out["type"] = [t, "null"]
        elif isinstance(t, list) and "null" not in t:
            out["type"] = t + ["null"]
        elif t is None and ("$ref" in out or "allOf" in out or "oneOf" in out or "anyOf" in out):
            out = {"anyOf": [{k: v for k, v in out.items() if k != "nullable"}, {"type": "null"}]}
        if "enum" in out and None not in out["enum"]:
            out["enum"] = list(out["enum"]) + [None]
    return out


class Spec:
    def __init__(self, path):
        raw = load_spec(path)
        version = str(raw.get("openapi", "3.0"))
        self.is31 = version.startswith("3.1")
        self.doc = prepare(raw, nullable_to_type=True)
        spec_kind = DRAFT202012 if self.is31 else DRAFT4
        self.validator_cls = (jsonschema.Draft202012Validator if self.is31
                              else jsonschema.Draft4Validator)
        self.registry = Registry().with_resource(
            BASE, Resource(contents=self.doc, specification=spec_kind))
        servers = self.doc.get("servers") or [{"url": "/"}]
        self.base_paths = sorted({urllib.parse.urlparse(s.get("url", "/")).path.rstrip("/")
                                  for s in servers}, key=len, reverse=True)
        self.routes = []
        for template, item in (self.doc.get("paths") or {}).items():
            item = self.deref(item)
            names = re.findall(r"\{([^}/]+)\}", template)
            rx = "^" + re.sub(r"\\\{[^}/]+\\\}", "([^/]+)", re.escape(template)) + "$"
            self.routes.append((len(names), template, re.compile(rx), names, item))
        self.routes.sort(key=lambda r: (r[0], -len(r[1])))  # literal segments win
        self._validators = {}

    def deref(self, obj, depth=0):
        while isinstance(obj, dict) and "$ref" in obj and depth < 32:
            ref = obj["$ref"]
            if not ref.startswith(BASE + "#"):
                raise ValueError("external $ref not supported: " + ref)
            node = self.doc
            for part in ref[len(BASE) + 2:].split("/") if ref != BASE + "#" else []:
                part = urllib.parse.unquote(part).replace("~1", "/").replace("~0", "~")
                node = node[int(part)] if isinstance(node, list) else node[part]
            obj, depth = node, depth + 1
        return obj

    def validator(self, schema):
        key = id(schema)
        v = self._validators.get(key)
        if v is None:
            v = self.validator_cls(schema, registry=self.registry)
            self._validators[key] = (v, schema)  # keep schema alive so id() stays unique
        else:
            v = v[0]
        return v

    def match(self, path):
        """(template, path item, params, trailing_slash_only) or None."""
        for base in self.base_paths + ([""] if "" not in self.base_paths else []):
            if base and not (path == base or path.startswith(base + "/")):
                continue
            rest = path[len(base):] or "/"
            for candidate, slash in ((rest, False), (rest.rstrip("/") or "/", True)):
                if slash and candidate == rest:
                    continue
                for _, template, rx, names, item in self.routes:
                    m = rx.match(candidate)
                    if m:
                        params = {n: urllib.parse.unquote(v) for n, v in zip(names, m.groups())}
                        return template, item, params, slash
        return None


def json_content(content):
    """The schema of the JSON media type in a content map, (found, schema)."""
    if not isinstance(content, dict):
        return False, None
    for mt, media in content.items():
        base = mt.split(";")[0].strip().lower()
        if base == "application/json" or base.endswith("+json") or base == "*/*":
            return True, (media or {}).get("schema")
    return False, None


def schema_types(spec, schema, depth=0):
    schema = spec.deref(schema) if isinstance(schema, dict) else {}
    t = schema.get("type")
    types = set([t] if isinstance(t, str) else (t or []))
    for key in ("anyOf", "oneOf", "allOf"):
        for sub in schema.get(key, []) or []:
            if depth < 8:
                types |= schema_types(spec, sub, depth + 1)
    return types


def coerce(spec, schema, raw):
    """Candidate typed values for a string parameter, most specific first."""
    types = schema_types(spec, schema)
    out = []
    if "integer" in types:
        try:
            out.append(int(raw))
        except ValueError:
            pass
    if "number" in types:
        try:
            out.append(float(raw))
        except ValueError:
            pass
    if "boolean" in types and raw in ("true", "false"):
        out.append(raw == "true")
    if "null" in types and raw in ("", "null"):
        out.append(None)
    if types & {"object", "array"}:
        try:
            out.append(json.loads(raw))
        except ValueError:
            pass
    out.append(raw)
    return out


def json_path(error_path):
    s = "$"
    for p in error_path:
        s += "[%d]" % p if isinstance(p, int) else "." + str(p)
    return s


def short(value, limit=120):
    text = json.dumps(value, sort_keys=True) if not isinstance(value, str) else repr(value)
    return text if len(text) <= limit else text[:limit] + "..."


def describe(error):
    """One line for a jsonschema error, descending into anyOf/oneOf to the likeliest cause."""
    if error.context:
        deepest = jsonschema.exceptions.best_match(error.context)
        if deepest is not None:
            return "%s (no %s branch matches; closest: %s at %s)" % (
                short(error.instance), error.validator, describe(deepest),
                json_path(deepest.absolute_path))
    if error.validator in ("additionalProperties", "unevaluatedProperties", "required", "enum",
                           "type", "const", "minItems", "maxItems", "minimum", "maximum",
                           "minLength", "maxLength", "pattern", "format"):
        msg = error.message
        if error.validator in ("type", "enum", "const", "minimum", "maximum", "pattern"):
            msg = "%s: %s %s" % (short(error.instance), error.validator,
                                 short(error.validator_value))
        return "%s: %s" % (error.validator, msg if len(msg) < 300 else msg[:300] + "...")
    msg = error.message
    return "%s: %s" % (error.validator, msg if len(msg) < 300 else msg[:300] + "...")


class Checker:
    def __init__(self, spec, log_path, defects=()):
        self.spec = spec
        self.defects = list(defects)
        self.unlisted = {"request": 0, "response": 0}
        self.lock = threading.Lock()
        self.log = open(log_path, "a", encoding="utf-8") if log_path else None
        self.calls = collections.Counter()
        self.statuses = collections.Counter()
        self.kinds = collections.Counter()
        self.count = {"request": 0, "response": 0}
        self.bodies_checked = {"request": 0, "response": 0}

    def report(self, direction, method, path, operation, what, where, status=None):
        line = {"direction": direction, "method": method, "path": path, "operation": operation,
                "what": what, "where": where}
        if status is not None:
            line["status"] = status
        defect = self.listed_defect(line)
        if defect:
            line["spec_defect"] = defect
        with self.lock:
            self.count[direction] += 1
            if not defect:
                self.unlisted[direction] += 1
            norm_where = re.sub(r"\[\d+\]", "[*]", where)
            self.kinds[(direction, method, operation or path, what, norm_where, defect)] += 1
            if self.log:
                self.log.write(json.dumps(line) + "\n")
                self.log.flush()

    def listed_defect(self, line):
        """The id of the --defects entry this violation is, or None."""
        for d in self.defects:
            if all(re.search(d[k], str(line.get(k) or "")) for k in
                   ("direction", "method", "operation", "what", "where") if k in d):
                return d["id"]
        return None

    def validate(self, schema, value):
        if schema is None:
            return []
        v = self.spec.validator(schema)
        return sorted(v.iter_errors(value), key=lambda e: list(map(str, e.absolute_path)))

    def body_errors(self, direction, method, full_path, template, schema, value, status=None):
        if schema is not None:
            with self.lock:
                self.bodies_checked[direction] += 1
        errors = self.validate(schema, value)
        # A subschema that fails evaluates none of its properties, so unevaluatedProperties then
        # also lists properties the spec does define: say so rather than hide it.
        others = any(e.validator != "unevaluatedProperties" for e in errors)
        for err in errors:
            what = describe(err)
            if others and err.validator == "unevaluatedProperties":
                what += " (may only follow from the other violations in this body)"
            self.report(direction, method, full_path, template, what,
                        "body" + json_path(err.absolute_path)[1:], status)

    def operation(self, method, path):
        parsed = urllib.parse.urlsplit(path)
        m = self.spec.match(parsed.path)
        if not m:
            return None, None, {}, False
        template, item, params, slash = m
        op = item.get(method.lower())
        return template, (item, op), params, slash

    def check_request(self, method, full_path, headers, body):
        parsed = urllib.parse.urlsplit(full_path)
        template, found, path_params, slash = self.operation(method, full_path)
        with self.lock:
            self.calls["%s %s" % (method, template or parsed.path)] += 1
        if template is None:
            self.report("request", method, full_path, None, "no path of the spec matches",
                        parsed.path)
            return None
        item, op = found
        if op is None:
            self.report("request", method, full_path, template,
                        "the spec documents no %s on this path" % method, "method")
            return None
        if slash:
            self.report("request", method, full_path, template,
                        "trailing slash: the spec's path is %s" % template, "path")
        self.check_security(method, full_path, template, op, headers, parsed.query)
        # Parameters: the path item's, overridden by the operation's (name + in).
        params = {}
        for p in (item.get("parameters") or []) + (op.get("parameters") or []):
            p = self.spec.deref(p)
            params[(p.get("name"), p.get("in"))] = p
        query = urllib.parse.parse_qs(parsed.query, keep_blank_values=True)
        for (name, where), p in params.items():
            if where == "path":
                raw = [path_params[name]] if name in path_params else []
            elif where == "query":
                raw = query.get(name, [])
            elif where == "header":
                raw = [headers[name]] if name in headers else []
            else:
                continue
            if not raw:
                if p.get("required") or where == "path":
                    self.report("request", method, full_path, template,
                                "required %s parameter missing" % where, name)
                continue
            self.check_param(method, full_path, template, p, where, name, raw)
        for name in query:
            if (name, "query") not in params:
                self.report("request", method, full_path, template,
                            "query parameter not in the spec", name)
        # Body.
        rb = self.spec.deref(op.get("requestBody")) if op.get("requestBody") else None
        if rb is None:
            if body:
                self.report("request", method, full_path, template,
                            "a body is sent but the operation documents none",
                            "body (%d bytes: %s)" % (len(body), short(body.decode("utf-8",
                                                                                 "replace"), 60)))
            return op
        if not body:
            if rb.get("required"):
                self.report("request", method, full_path, template,
                            "required request body missing", "body")
            return op
        ctype = headers.get("Content-Type", "")
        is_json, schema = json_content(rb.get("content"))
        if not is_json:
            self.report("request", method, full_path, template,
                        "the spec documents no JSON body (media types: %s)" %
                        ", ".join((rb.get("content") or {}).keys()), "body")
            return op
        if "json" not in ctype.lower():
            self.report("request", method, full_path, template,
                        "Content-Type %r is not JSON" % ctype, "header Content-Type")
        try:
            value = json.loads(body)
        except ValueError as e:
            self.report("request", method, full_path, template, "body is not JSON: %s" % e,
                        "body")
            return op
        self.body_errors("request", method, full_path, template, schema, value)
        return op

    def check_security(self, method, full_path, template, op, headers, query):
        """One of the operation's (or the document's) security requirements is met."""
        reqs = op.get("security", self.spec.doc.get("security"))
        if not reqs:
            return
        schemes = (self.spec.doc.get("components") or {}).get("securitySchemes") or {}
        auth = headers.get("Authorization", "") or ""
        qs = urllib.parse.parse_qs(query)

        def met(name):
            sch = self.spec.deref(schemes.get(name) or {})
            if sch.get("type") == "http":
                return auth.lower().startswith(str(sch.get("scheme", "")).lower() + " ")
            if sch.get("type") == "apiKey":
                where = sch.get("in")
                return (where == "header" and sch.get("name") in headers) or \
                    (where == "query" and sch.get("name") in qs)
            return True  # oauth2 / openIdConnect / mutualTLS: not checked

        if not any(all(met(n) for n in req) for req in reqs):
            self.report("request", method, full_path, template,
                        "no security requirement met (%s)" %
                        " or ".join("+".join(r) or "none" for r in reqs), "header Authorization")

    def check_param(self, method, full_path, template, p, where, name, raw):
        schema = p.get("schema")
        if schema is None:
            is_json, schema = json_content(p.get("content"))
            values = []
            for r in raw:
                try:
                    values.append(json.loads(r))
                except ValueError:
                    self.report("request", method, full_path, template,
                                "%s parameter is not JSON" % where, name)
                    return
            candidates_per_value = [[v] for v in values]
        else:
            types = schema_types(self.spec, schema)
            if "array" in types:
                items = self.spec.deref(self.spec.deref(schema).get("items", {}))
                flat = raw if p.get("explode", where in ("query", "cookie")) or len(raw) > 1 \
                    else raw[0].split(",")
                typed = [coerce(self.spec, items, r)[0] for r in flat]
                candidates_per_value = [[typed]]
            else:
                if len(raw) > 1:
                    self.report("request", method, full_path, template,
                                "%s parameter repeated but not an array" % where, name)
                candidates_per_value = [coerce(self.spec, schema, r) for r in raw]
        for candidates in candidates_per_value:
            first_errors = None
            for c in candidates:
                errors = self.validate(schema, c)
                if not errors:
                    first_errors = []
                    break
                if first_errors is None:
                    first_errors = errors
            for err in first_errors or []:
                self.report("request", method, full_path, template, describe(err),
                            "%s parameter %s%s" % (where, name, json_path(err.absolute_path)[1:]))

    def check_response(self, method, full_path, op, status, headers, body):
        if op is None:
            return
        template, _, _, _ = self.operation(method, full_path)
        with self.lock:
            self.statuses["%s %s -> %d" % (method, template, status)] += 1
        responses = op.get("responses") or {}
        resp = None
        for key in (str(status), "%dXX" % (status // 100), "%dxx" % (status // 100), "default"):
            if key in responses:
                resp = self.spec.deref(responses[key])
                break
        if resp is None:
            self.report("response", method, full_path, template,
                        "status %d not documented (documented: %s)" %
                        (status, ", ".join(sorted(map(str, responses)))), "status", status)
            return
        content = resp.get("content")
        if not content:
            return  # nothing documented about the body
        is_json, schema = json_content(content)
        if not is_json:
            return  # a non-JSON media type: not checked
        if not body:
            self.report("response", method, full_path, template,
                        "empty body where the spec documents JSON", "body", status)
            return
        try:
            value = json.loads(body)
        except ValueError as e:
            self.report("response", method, full_path, template, "body is not JSON: %s" % e,
                        "body", status)
            return
        self.body_errors("response", method, full_path, template, schema, value, status)

    def summary(self, spec_path):
        kinds = [{"direction": d, "method": m, "operation": o, "what": w, "where": wh,
                  "spec_defect": sd, "count": n}
                 for (d, m, o, w, wh, sd), n in sorted(self.kinds.items(),
                                                       key=lambda kv: str(kv[0]))]
        return {"spec": spec_path, "calls": sum(self.calls.values()),
                "calls_by_operation": dict(sorted(self.calls.items())),
                "answers_by_status": dict(sorted(self.statuses.items())),
                "request_bodies_checked": self.bodies_checked["request"],
                "response_bodies_checked": self.bodies_checked["response"],
                "request_violations": self.count["request"],
                "response_violations": self.count["response"],
                "request_violations_not_listed": self.unlisted["request"],
                "response_violations_not_listed": self.unlisted["response"],
                "distinct_violations": kinds}


def make_handler(checker, upstream):
    up = urllib.parse.urlsplit(upstream)
    prefix = up.path.rstrip("/")

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def handle_any(self):
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else b""
            method = self.command
            try:
                op = checker.check_request(method, self.path, self.headers, body)
            except Exception as e:  # a checker bug must not hide the call
                checker.report("request", method, self.path, None, "checker error: %r" % e, "")
                op = None
            conn = http.client.HTTPConnection(up.hostname, up.port or 80, timeout=300)
            try:
                fwd = {k: v for k, v in self.headers.items() if k.lower() not in HOP_HEADERS}
                if body or method in ("POST", "PUT", "PATCH"):
                    fwd["Content-Length"] = str(len(body))
                conn.request(method, prefix + self.path, body=body or None, headers=fwd)
                r = conn.getresponse()
                rbody = r.read()
                status, rheaders = r.status, r.getheaders()
            except OSError as e:
                self.send_response(502)
                msg = ("proxy: upstream failed: %s" % e).encode()
                self.send_header("Content-Length", str(len(msg)))
                self.end_headers()
                self.wfile.write(msg)
                return
            finally:
                conn.close()
            try:
                checker.check_response(method, self.path, op, status, rheaders, rbody)
            except Exception as e:
                checker.report("response", method, self.path, None, "checker error: %r" % e, "")
            self.send_response_only(status)
            for k, v in rheaders:
                if k.lower() not in HOP_HEADERS:
                    self.send_header(k, v)
            self.send_header("Content-Length", str(len(rbody)))
            self.end_headers()
            if method != "HEAD":
                self.wfile.write(rbody)

        do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = do_HEAD = do_OPTIONS = handle_any

    return Handler


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    allow_reuse_address = True


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--spec", required=True, help="the provider's OpenAPI spec (JSON or YAML)")
    ap.add_argument("--upstream", required=True,
                    help="where to forward, e.g. http://127.0.0.1:8700/runpod")
    ap.add_argument("--listen", default="127.0.0.1:0", help="HOST:PORT (port 0: any free one)")
    ap.add_argument("--log", help="append one JSON line per violation here")
    ap.add_argument("--summary", help="write the summary JSON here at exit")
    ap.add_argument("--defects", help="JSON list of known spec defects: {id, and regexes for any "
                    "of direction, method, operation, what, where}; matching violations are "
                    "still logged and counted, with their id, and counted apart as listed")
    args = ap.parse_args()
    spec = Spec(args.spec)
    defects = []
    if args.defects:
        with open(args.defects, encoding="utf-8") as f:
            defects = json.load(f)
    checker = Checker(spec, args.log, defects)
    host, _, port = args.listen.rpartition(":")
    server = Server((host or "127.0.0.1", int(port)), make_handler(checker, args.upstream))
    print("listening on http://%s:%d" % server.server_address[:2], flush=True)

    def stop(*_):
        threading.Thread(target=server.shutdown, daemon=True).start()

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    server.serve_forever()
    s = checker.summary(args.spec)
    if args.summary:
        with open(args.summary, "w", encoding="utf-8") as f:
            json.dump(s, f, indent=1)
    print("%s: %d calls, %d request violations (%d not listed as spec defects), %d response "
          "violations (%d not listed)" % (
              args.spec, s["calls"], s["request_violations"], s["request_violations_not_listed"],
              s["response_violations"], s["response_violations_not_listed"]), file=sys.stderr)
    for k in s["distinct_violations"]:
        print("  %(count)4d x %(direction)s %(method)s %(operation)s: %(what)s at %(where)s" % k
              + (" [spec defect %s]" % k["spec_defect"] if k["spec_defect"] else ""),
              file=sys.stderr)


if __name__ == "__main__":
    main()
