# Writes the targeting vectors of this folder (docs/protocol.md section 12). The split
# expectations come from the murmur3 below, written independently of src/core/murmur3.ts.
# Run: python3 test/vectors/targeting/generate.py && npx biome check --write test/vectors
import json
import os
# ---- independent murmur3 x86_32 (for split expectations)
def murmur3(data: bytes, seed=0):
    c1, c2 = 0xcc9e2d51, 0x1b873593
    h = seed & 0xffffffff
    n = len(data) // 4
    for i in range(n):
        k = int.from_bytes(data[4*i:4*i+4], 'little')
        k = (k * c1) & 0xffffffff; k = ((k << 15) | (k >> 17)) & 0xffffffff; k = (k * c2) & 0xffffffff
        h ^= k; h = ((h << 13) | (h >> 19)) & 0xffffffff; h = (h * 5 + 0xe6546b64) & 0xffffffff
    tail = data[4*n:]; k = 0
    for i, b in enumerate(tail): k |= b << (8*i)
    if tail:
        k = (k * c1) & 0xffffffff; k = ((k << 15) | (k >> 17)) & 0xffffffff; k = (k * c2) & 0xffffffff; h ^= k
    h ^= len(data); h ^= h >> 16; h = (h * 0x85ebca6b) & 0xffffffff; h ^= h >> 13; h = (h * 0xc2b2ae35) & 0xffffffff; h ^= h >> 16
    return h
def point(salt, value):
    r = murmur3((salt + ':' + value).encode('utf-8')) % 100000
    return (r % 100) * 1000 + r // 100
def slice_of(weights, p):
    s = 0
    for i, w in enumerate(weights):
        s += w
        if s > p: return i
    return -1

ON_OFF_FALL = {"variant": "off"}
def clause_flag(key, clause):
    return {"key": key, "type": "boolean", "enabled": True, "version": 1,
            "fallthrough": {"variant": "off"},
            "rules": [{"id": "r1", "clauses": [clause], "serve": {"variant": "on"}}]}

files = {}
# ---------------- operators
op_cases = []
flags = {}
def op(name, clause, users):
    key = name
    flags[key] = clause_flag(key, clause)
    for user, expected, why in users:
        c = {"flag": key, "user": user, "why": why}
        if expected is None:
            c.update({"default": False, "value": False, "reason": "ERROR"})
        elif expected:
            c.update({"value": True, "variant": "on", "reason": "RULE_MATCH", "ruleIndex": 0, "ruleId": "r1"})
        else:
            c.update({"value": False, "variant": "off", "reason": "FALLTHROUGH"})
        op_cases.append(c)
U = lambda **kw: {"key": "u", **kw}
op("in-country", {"attribute": "country", "op": "in", "values": ["US", "CA"]}, [
  (U(country="US"), True, "equal to a value"), (U(country="us"), False, "case matters"),
  (U(), False, "absent attribute"), (U(country=None), False, "null attribute"),
  (U(country=["FR", "CA"]), True, "an array matches when an element does"), (U(country=[]), False, "an empty array has no element"),
  (U(country=1), False, "JSON type strict"), ("u", False, "a string user has no attributes")])
op("in-ci", {"attribute": "country", "op": "in", "values": ["US"], "caseInsensitive": True}, [
  (U(country="us"), True, "caseInsensitive folds both sides"), (U(country="Us"), True, "folded")])
op("in-negate", {"attribute": "country", "op": "in", "values": ["US"], "negate": True}, [
  (U(country="US"), False, "negated"), (U(country="FR"), True, "negated"), (U(), True, "negate inverts a missing attribute too"), (U(country=None), True, "null is missing")])
op("in-numbers", {"attribute": "n", "op": "in", "values": [1, 2.5, True]}, [
  (U(n=1), True, "number"), (U(n=1.0), True, "numerically"), (U(n="1"), False, "a string is not a number for in"), (U(n=2.5), True, "decimal"), (U(n=True), True, "boolean"), (U(n=False), False, "other boolean")])
op("in-empty", {"attribute": "country", "op": "in", "values": []}, [(U(country="US"), False, "an empty list matches nothing")])
op("in-empty-negate", {"attribute": "country", "op": "in", "values": [], "negate": True}, [(U(country="US"), True, "negated empty list: everyone")])
op("in-key", {"attribute": "key", "op": "in", "values": ["alice"]}, [({"key": "alice"}, True, "the user key"), ("alice", True, "a string user is its key"), ({"key": "bob"}, False, "other key")])
op("endsWith", {"attribute": "email", "op": "endsWith", "values": ["@example.com", "@example.org"]}, [
  (U(email="a@example.com"), True, "suffix"), (U(email="a@example.org"), True, "any value"), (U(email="a@EXAMPLE.com"), False, "case matters"),
  (U(email=5), False, "a string operator on a number"), (U(email=["x@other.net", "y@example.org"]), True, "array element")])
op("endsWith-ci", {"attribute": "email", "op": "endsWith", "values": ["@Example.COM"], "caseInsensitive": True}, [(U(email="A@EXAMPLE.com"), True, "folded both sides")])
op("endsWith-negate-number", {"attribute": "email", "op": "endsWith", "values": ["x"], "negate": True}, [(U(email=5), True, "false on a number, then negated")])
op("startsWith", {"attribute": "path", "op": "startsWith", "values": ["/admin"]}, [(U(path="/admin/users"), True, "prefix"), (U(path="/Admin"), False, "case")])
op("contains", {"attribute": "ua", "op": "contains", "values": ["Mobile"]}, [(U(ua="Foo Mobile Bar"), True, "substring"), (U(ua="mobile"), False, "case")])
op("gt", {"attribute": "age", "op": "greaterThan", "values": [18]}, [
  (U(age=19), True, "number"), (U(age=18), False, "exclusive"), (U(age="19"), True, "numeric string"), (U(age="19.5"), True, "decimal string"),
  (U(age="1e2"), True, "exponent"), (U(age="0x13"), False, "not JSON number syntax"), (U(age=" 19"), False, "spaces are not JSON number syntax"),
  (U(age="019"), False, "leading zero"), (U(age=True), False, "boolean"), (U(age=None), False, "null"), (U(age=[3, 20]), True, "array element")])
op("gt-negate", {"attribute": "age", "op": "greaterThan", "values": [18], "negate": True}, [(U(age=None), True, "missing then negated"), (U(age="x"), True, "not a number then negated")])
op("lte", {"attribute": "age", "op": "lessThanOrEqual", "values": [18]}, [(U(age=18), True, "inclusive"), (U(age=-1), True, "negative"), (U(age=18.01), False, "above")])
op("lt-any", {"attribute": "age", "op": "lessThan", "values": [10, 20]}, [(U(age=15), True, "any value: below 20")])
op("gte", {"attribute": "age", "op": "greaterThanOrEqual", "values": [18]}, [(U(age=18), True, "inclusive"), (U(age=17.999), False, "below")])
op("numberEquals", {"attribute": "n", "op": "numberEquals", "values": [1]}, [(U(n="1.0"), True, "numerically"), (U(n=1), True, "number"), (U(n="01"), False, "not JSON syntax"), (U(n="1"), True, "string")])
op("before", {"attribute": "at", "op": "before", "values": ["2024-01-01T00:00:00Z"]}, [
  (U(at="2023-12-31T23:59:59Z"), True, "earlier"), (U(at="2024-01-01T00:00:00Z"), False, "exclusive"),
  (U(at="2024-01-01T01:00:00+02:00"), True, "an offset: 23:00Z the day before"), (U(at=1704067199000), True, "epoch ms"),
  (U(at="2023-12-31"), False, "a date without a time"), (U(at="2023-12-31T23:59:59"), False, "no offset"),
  (U(at="2023-12-31 23:59:59.5z"), True, "space separator, fraction, lower-case z"), (U(at=True), False, "boolean")])
op("after-ms", {"attribute": "at", "op": "after", "values": [1704067200000]}, [(U(at="2024-01-01T00:00:00.001Z"), True, "a millisecond later"), (U(at=1704067200000), False, "exclusive")])
op("now-after", {"attribute": "$now", "op": "after", "values": ["2020-01-01T00:00:00Z"]}, [(U(), True, "the evaluation time is after 2020"), (U(**{"$now": 1577836799000}), False, "$now set by the user, for tests")])
op("semver-gte", {"attribute": "version", "op": "semVerGreaterThanOrEqual", "values": ["2.0.0"]}, [
  (U(version="2.0.0"), True, "equal"), (U(version="2.0.0-rc.1"), False, "a pre-release is lower"), (U(version="10.0.0"), True, "numeric, not lexical"),
  (U(version="2"), True, "padded: 2.0.0"), (U(version="2.1"), True, "padded: 2.1.0"), (U(version="v2.0.0"), False, "a leading v never matches"),
  (U(version="1.9.9+build.5"), False, "build ignored"), (U(version="2.0.0+build"), True, "build ignored: equal"), (U(version="2.0"), True, "2.0.0"),
  (U(version="02.0.0"), False, "leading zero is invalid"), (U(version="2.0.0.0"), False, "four parts"), (U(version=2), False, "a number is not a version")])
op("semver-lt-pre", {"attribute": "version", "op": "semVerLessThan", "values": ["1.0.0-alpha.1"]}, [
  (U(version="1.0.0-alpha"), True, "fewer identifiers is lower"), (U(version="1.0.0-alpha.beta"), False, "alphanumeric above numeric"),
  (U(version="1.0.0-1"), True, "numeric identifiers are lower than alphanumeric"), (U(version="1.0.0"), False, "a release is higher")])
op("semver-eq", {"attribute": "version", "op": "semVerEqual", "values": ["1.2.3"]}, [(U(version="1.2.3+meta"), True, "build ignored"), (U(version="1.2.3-0"), False, "pre-release differs")])
op("semver-lte", {"attribute": "version", "op": "semVerLessThanOrEqual", "values": ["1.2.3"]}, [(U(version="1.2.3"), True, "equal"), (U(version="1.2.4"), False, "above")])
op("semver-gt", {"attribute": "version", "op": "semVerGreaterThan", "values": ["1.2.3-beta.2"]}, [(U(version="1.2.3-beta.11"), True, "numeric identifiers compare numerically"), (U(version="1.2.3-beta.2"), False, "equal")])
op("cidr", {"attribute": "ip", "op": "inCidr", "values": ["10.0.0.0/8", "2001:db8::/32", "192.168.1.1"]}, [
  (U(ip="10.1.2.3"), True, "in the IPv4 range"), (U(ip="11.0.0.1"), False, "outside"), (U(ip="2001:db8::1"), True, "in the IPv6 range"),
  (U(ip="2001:DB8:0:0:0:0:0:ffff"), True, "full IPv6, upper case"), (U(ip="2001:db9::1"), False, "outside IPv6"), (U(ip="::ffff:10.0.0.1"), True, "IPv4-mapped IPv6 is the IPv4 address"),
  (U(ip="192.168.1.1"), True, "a single address"), (U(ip="192.168.1.2"), False, "another address"), (U(ip="10.0.0"), False, "not an address"),
  (U(ip="fe80::1%eth0"), False, "a zone is not an address"), (U(ip=167772161), False, "a number is not an address")])
op("cidr-v6", {"attribute": "ip", "op": "inCidr", "values": ["::1/128", "fd00::/8"]}, [(U(ip="::1"), True, "loopback"), (U(ip="fdff:ffff::"), True, "in /8"), (U(ip="fe00::"), False, "outside /8")])
op("matches", {"attribute": "email", "op": "matches", "values": ["^[a-z]+@example\\.(com|org)$"]}, [
  (U(email="ann@example.com"), True, "an RE2 pattern, searched"), (U(email="Ann@example.com"), False, "case matters"),
  (U(email="ann@example.net"), False, "no match"), (U(email=["x", "bob@example.org"]), True, "array element"), (U(email=5), False, "not a string")])
op("matches-ci", {"attribute": "email", "op": "matches", "values": ["@EXAMPLE\\.COM$"], "caseInsensitive": True}, [(U(email="ann@example.com"), True, "caseInsensitive compiles the pattern as (?i)")])
op("matches-unanchored", {"attribute": "path", "op": "matches", "values": ["/admin(/|$)"]}, [(U(path="/x/admin/y"), True, "unanchored search"), (U(path="/administrator"), False, "no match")])
op("matches-catastrophic", {"attribute": "s", "op": "matches", "values": ["^(a+)+$"]}, [(U(s="a" * 5000 + "b"), False, "a catastrophic pattern for backtracking engines: linear here")])
op("matches-long", {"attribute": "s", "op": "matches", "values": ["a"]}, [(U(s="a" * 65537), False, "an attribute over 64 KiB never matches")])
op("exists", {"attribute": "plan", "op": "exists", "values": []}, [(U(plan="pro"), True, "present"), (U(plan=None), False, "null"), (U(), False, "absent"), (U(plan=[]), True, "an empty array is present"), (U(plan=False), True, "false is present")])
op("exists-negate", {"attribute": "plan", "op": "exists", "values": [], "negate": True}, [(U(), True, "absent, negated")])
op("pointer", {"attribute": "/address/city", "op": "in", "values": ["Paris"]}, [(U(address={"city": "Paris"}), True, "nested"), (U(address="Paris"), False, "not an object"), (U(), False, "absent")])
op("pointer-escape", {"attribute": "/a~1b/c~0d", "op": "in", "values": [1]}, [(U(**{"a/b": {"c~d": 1}}), True, "~1 is / and ~0 is ~")])
op("unknown-op", {"attribute": "x", "op": "startWith", "values": ["a"]}, [(U(x="abc"), None, "an operator this SDK does not know: the default, ERROR")])
files["operators.json"] = {"description": "Each clause operator and its edge cases: a boolean flag with one rule (r1, serving on) and fallthrough off.", "flags": flags, "segments": {}, "cases": op_cases}

# ---------------- segments
seg_flags = {
 "seg": clause_flag("seg", {"op": "inSegment", "values": ["beta", "staff"]}),
 "seg-negate": clause_flag("seg-negate", {"op": "inSegment", "values": ["beta"], "negate": True}),
 "seg-dangling": clause_flag("seg-dangling", {"op": "inSegment", "values": ["nope"]}),
}
segments = {
 "beta": {"key": "beta", "included": ["u1", "u2-included"], "excluded": ["u2"], "rules": [{"clauses": [{"attribute": "plan", "op": "in", "values": ["pro"]}]}]},
 "staff": {"key": "staff", "included": [], "excluded": [], "rules": [{"clauses": [{"attribute": "email", "op": "endsWith", "values": ["@corp.example"]}, {"attribute": "active", "op": "in", "values": [True]}]}]},
}
def hit(flag, user, why): return {"flag": flag, "user": user, "value": True, "variant": "on", "reason": "RULE_MATCH", "ruleIndex": 0, "ruleId": "r1", "why": why}
def miss(flag, user, why): return {"flag": flag, "user": user, "value": False, "variant": "off", "reason": "FALLTHROUGH", "why": why}
seg_cases = [
 hit("seg", {"key": "u1"}, "included"), miss("seg", {"key": "u2", "plan": "pro"}, "excluded beats the segment's rules"),
 hit("seg", {"key": "u3", "plan": "pro"}, "a segment rule"), miss("seg", {"key": "u4"}, "in neither"),
 hit("seg", {"key": "u5", "email": "a@corp.example", "active": True}, "another segment of the list, every clause of its rule"),
 miss("seg", {"key": "u5", "email": "a@corp.example"}, "one clause of the rule fails"),
 hit("seg", "u1", "a string user by key"),
 miss("seg-negate", {"key": "u1"}, "negated"), hit("seg-negate", {"key": "u9"}, "negated: not in it"),
 {"flag": "seg-dangling", "user": {"key": "u1"}, "default": False, "value": False, "reason": "ERROR", "why": "a segment the SDK does not hold: the default, ERROR"},
]
files["segments.json"] = {"description": "inSegment: included, excluded, rules; any of several segments; negation; a dangling segment.", "flags": seg_flags, "segments": segments, "cases": seg_cases}

# ---------------- order: targets, rules, prerequisites, variants
def sflag(key, **kw):
    f = {"key": key, "type": "string", "enabled": True, "version": 3, "variants": {"red": "#f00", "green": "#0f0", "blue": "#00f"}, "offVariant": "red"}
    f.update(kw); return f
order_flags = {
 "plain-string": sflag("plain-string"),
 "off-string": sflag("off-string", enabled=False, rules=[{"id": "a", "clauses": [], "serve": {"variant": "blue"}}]),
 "targets": sflag("targets", targets=[{"variant": "green", "keys": ["t1", "t2"]}, {"variant": "blue", "keys": ["t2", "t3"]}],
     rules=[{"id": "everyone", "clauses": [], "serve": {"variant": "red"}}], fallthrough={"variant": "green"}),
 "rules": sflag("rules", rules=[
     {"id": "vip", "clauses": [{"attribute": "tier", "op": "in", "values": ["vip"]}], "serve": {"variant": "blue"}},
     {"id": "null-slice", "clauses": [{"attribute": "tier", "op": "exists", "values": []}], "serve": {"split": [{"variant": None, "weight": 100000}]}},
     {"id": "fr", "clauses": [{"attribute": "country", "op": "in", "values": ["FR"]}], "serve": {"variant": "green"}}],
     fallthrough={"variant": "red"}),
 "rule-split-missing": sflag("rule-split-missing", rules=[
     {"id": "split", "clauses": [], "serve": {"split": [{"variant": "blue", "weight": 50000}, {"variant": "green", "weight": 50000}], "bucketBy": "org"}}],
     fallthrough={"variant": "red"}),
 "fallthrough-split-missing": sflag("fallthrough-split-missing", fallthrough={"split": [{"variant": "blue", "weight": 50000}, {"variant": "green", "weight": 50000}], "bucketBy": "org"}),
 "fallthrough-split-whole": sflag("fallthrough-split-whole", fallthrough={"split": [{"variant": "blue", "weight": 0}, {"variant": "green", "weight": 100000}], "bucketBy": "org"}),
 "parent-on": {"key": "parent-on", "type": "boolean", "enabled": True, "version": 1},
 "parent-off": {"key": "parent-off", "type": "boolean", "enabled": False, "version": 1},
 "child": sflag("child", prerequisites=[{"flag": "parent-on", "variants": ["on"]}, {"flag": "parent-off", "variants": ["on"]}], fallthrough={"variant": "blue"}),
 "child-ok": sflag("child-ok", prerequisites=[{"flag": "parent-on", "variants": ["on"]}, {"flag": "parent-off", "variants": ["off"]}], fallthrough={"variant": "blue"}),
 "child-missing": sflag("child-missing", prerequisites=[{"flag": "gone", "variants": ["on"]}]),
 "cycle-a": sflag("cycle-a", prerequisites=[{"flag": "cycle-b", "variants": ["red"]}]),
 "cycle-b": sflag("cycle-b", prerequisites=[{"flag": "cycle-a", "variants": ["red"]}]),
 "num": {"key": "num", "type": "number", "enabled": True, "version": 2, "variants": {"low": 1, "high": 2.5}, "rules": [{"id": "x", "clauses": [{"attribute": "n", "op": "greaterThan", "values": [10]}], "serve": {"variant": "high"}}]},
 "json": {"key": "json", "type": "json", "enabled": True, "version": 2, "variants": {"a": {"theme": "dark", "n": [1, 2]}, "b": {"theme": "light", "n": []}}, "offVariant": "b"},
 "bool-custom-fallthrough": {"key": "bool-custom-fallthrough", "type": "boolean", "enabled": True, "version": 1, "fallthrough": {"variant": "off"}},
}
def vc(flag, user, value, variant, reason, why, **extra):
    c = {"flag": flag, "user": user, "value": value, "variant": variant, "reason": reason, "why": why}; c.update(extra); return c
order_cases = [
 vc("plain-string", {"key": "u"}, "#f00", "red", "ON", "a plain string flag serves its first variant with today's reason"),
 vc("off-string", {"key": "u"}, "#f00", "red", "OFF", "disabled: the off variant, whatever the rules"),
 vc("targets", {"key": "t1"}, "#0f0", "green", "TARGET_MATCH", "a target before the rules"),
 vc("targets", {"key": "t2"}, "#0f0", "green", "TARGET_MATCH", "the first target listing the key"),
 vc("targets", {"key": "t3"}, "#00f", "blue", "TARGET_MATCH", "the second target"),
 vc("targets", {"key": "x"}, "#f00", "red", "RULE_MATCH", "no target: the rule", ruleIndex=0, ruleId="everyone"),
 vc("rules", {"key": "u", "tier": "vip", "country": "FR"}, "#00f", "blue", "RULE_MATCH", "the first matching rule", ruleIndex=0, ruleId="vip"),
 vc("rules", {"key": "u", "tier": "gold", "country": "FR"}, "#0f0", "green", "RULE_MATCH", "a null slice goes on to the next rule", ruleIndex=2, ruleId="fr"),
 vc("rules", {"key": "u", "tier": "gold"}, "#f00", "red", "FALLTHROUGH", "a null slice, then nothing: the fallthrough"),
 vc("rule-split-missing", {"key": "u"}, "#f00", "red", "FALLTHROUGH", "a split without its bucket value skips its rule"),
 vc("fallthrough-split-missing", {"key": "u"}, "#f00", "red", "MISSING_USER_KEY", "a fallthrough split without its bucket value: the off variant"),
 vc("fallthrough-split-whole", {"key": "u"}, "#0f0", "green", "FALLTHROUGH", "all the weight on one slice needs no bucket value"),
 vc("child", {"key": "u"}, "#f00", "red", "PREREQUISITE_FAILED", "the second prerequisite serves off", prerequisiteKey="parent-off"),
 vc("child-ok", {"key": "u"}, "#00f", "blue", "FALLTHROUGH", "a disabled parent serves off, which the prerequisite asks for"),
 {"flag": "child-missing", "user": {"key": "u"}, "default": "dflt", "value": "dflt", "reason": "ERROR", "why": "a prerequisite the SDK does not hold"},
 {"flag": "cycle-a", "user": {"key": "u"}, "default": "dflt", "value": "dflt", "reason": "ERROR", "why": "a cycle of prerequisites"},
 vc("num", {"key": "u", "n": 11}, 2.5, "high", "RULE_MATCH", "number flag", ruleIndex=0, ruleId="x"),
 vc("num", {"key": "u"}, 1, "low", "FALLTHROUGH", "number flag, fallthrough is the first variant"),
 vc("json", {"key": "u"}, {"theme": "dark", "n": [1, 2]}, "a", "ON", "json flag"),
 vc("bool-custom-fallthrough", {"key": "u"}, False, "off", "FALLTHROUGH", "a boolean flag with a custom fallthrough reports FALLTHROUGH"),
]
files["evaluation-order.json"] = {"description": "Disabled, prerequisites, targets, rules (null slices, missing bucket values), fallthrough; string, number and json variants.", "flags": order_flags, "segments": {}, "cases": order_cases}

# ---------------- splits: expectations from an independent murmur3
split_flags = {}
split_cases = []
weights = [33333, 33333, 33334]
names = ["a", "b", "c"]
split_flags["three-way"] = {"key": "three-way", "type": "string", "enabled": True, "version": 1, "variants": {"a": "A", "b": "B", "c": "C"},
   "rules": [{"id": "all", "clauses": [], "serve": {"split": [{"variant": n, "weight": w} for n, w in zip(names, weights)], "bucketBy": ["org", "key"], "salt": "exp-7"}}]}
for i in range(40):
    user = {"key": f"user-{i}"}
    if i % 3 == 0: user["org"] = f"org-{i}"
    if i % 5 == 0: user["org"] = i * 7  # an integer counts as its decimal string
    if i % 7 == 0: user["org"] = ""      # empty: missing, falls to key
    value = user.get("org")
    if isinstance(value, int) and not isinstance(value, bool): bucket_value = str(value)
    elif isinstance(value, str) and value != "": bucket_value = value
    else: bucket_value = user["key"]
    p = point("exp-7", bucket_value)
    idx = slice_of(weights, p)
    split_cases.append(vc("three-way", user, names[idx].upper(), names[idx], "RULE_MATCH", f"f = {p}", ruleIndex=0, ruleId="all"))
# rollout with rules keeps decisions: plain rollout vs rollout with a never-matching rule
split_flags["rollout-plain"] = {"key": "ro", "type": "rollout", "enabled": True, "version": 1, "percentage": 37}
split_flags["rollout-ruled"] = {"key": "ro", "type": "rollout", "enabled": True, "version": 1, "percentage": 37,
    "rules": [{"id": "never", "clauses": [{"attribute": "never", "op": "exists", "values": []}], "serve": {"variant": "on"}}]}
for i in range(30):
    k = f"k{i}"
    p = point("ro", k)
    on = p < 37000
    bucket = (murmur3(("ro:" + k).encode()) % 100) + 1
    assert on == (bucket <= 37)
    split_cases.append(vc("rollout-plain", {"key": k}, on, "on" if on else "off", "ROLLOUT_IN" if on else "ROLLOUT_OUT", f"bucket {bucket}", bucket=bucket))
    split_cases.append(vc("rollout-ruled", {"key": k}, on, "on" if on else "off", "FALLTHROUGH", "a rollout given rules keeps every non-matching user's decision"))
split_cases.append(vc("rollout-plain", {}, False, "off", "MISSING_USER_KEY", "no key"))
split_cases.append(vc("rollout-plain", {"key": ""}, False, "off", "MISSING_USER_KEY", "an empty key is no key"))
# boundaries: find keys whose point is exactly around a bound 50000 in a 50/50 split
split_flags["half"] = {"key": "half", "type": "boolean", "enabled": True, "version": 1,
   "fallthrough": {"split": [{"variant": "on", "weight": 50000}, {"variant": "off", "weight": 50000}]}}
found = {}
i = 0
while len(found) < 4 and i < 2_000_000:
    k = f"b{i}"; p = point("half", k)
    for target in (49999, 50000, 0, 99999):
        if p == target and target not in found: found[target] = k
    i += 1
for target, k in sorted(found.items()):
    on = target < 50000
    split_cases.append(vc("half", {"key": k}, on, "on" if on else "off", "FALLTHROUGH", f"f = {target}: the first slice whose running sum is greater than f"))
files["splits.json"] = {"description": "Splits against an independent murmur3: bucketBy (first present, integers as decimal, empty is missing), salt, rollouts as splits, boundaries.", "flags": split_flags, "segments": {}, "cases": split_cases}

for name, data in files.items():
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), name), "w") as f:
        json.dump(data, f, indent=1, ensure_ascii=False)
        f.write("\n")
print({k: len(v["cases"]) for k, v in files.items()}, "boundaries found:", sorted(found))
