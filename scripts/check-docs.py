#!/usr/bin/python3
"""Runs every shell command and compiles and runs every C++ snippet of README.md and docs/*.md.

Usage: check-docs.py DIR FILE.md...      (run in DIR)
       check-docs.py --emit-cpp OUT FILE.md...  (write the C++ programs to OUT)
Called by scripts/check-docs.sh, which makes the directory the commands run in (a fresh clone
with ../shared beside it and the captures the emulators make) and puts the built tool on PATH.

Every fenced block must say what it is in its info string:
  sh    commands, run with bash (set -e -o pipefail) from the clone's top directory;
  python  a program, run there by /usr/bin/python3 with the build's Python package first on
        PYTHONPATH (build/python), in file order with the sh blocks (it may read what they wrote);
  cpp   a C++ snippet, compiled against the clone's include/ and run;
  text  anything else (a synopsis, printed output), not run;
  ebnf  a grammar, not run.
A block with no info string is an error, so that nothing goes unchecked by accident. An HTML
comment right before a block changes what is done with it:
  <!-- check-docs: skip (REASON) -->          not run (sh, cpp); the reason is required
  <!-- check-docs: exit N -->                  the commands must exit with status N
  <!-- check-docs: short form (REASON)        run these commands instead of the block's
  COMMANDS
  -->
  <!-- check-docs: output of COMMAND -->       (text) COMMAND's stdout and stderr must equal
                                               the block; with `exit N` its status must be N
  <!-- check-docs: expect TEXT -->             the output must contain TEXT (repeatable)
  <!-- check-docs: cpp harness                (cpp) the program: @SNIPPET@ stands for the block;
  PROGRAM                                      the block's #include lines go first
  -->
  <!-- check-docs: compile fails -->           (cpp) the program must not compile (with
                                               `expect`, the compiler's messages must say TEXT)
Every program can call docs_read_file(PATH), which returns a file's bytes as a
std::vector<std::byte>. A cpp block without a harness is placed in `int main() { ... }` after #include <hwpc/hwpc.hpp>,
or compiled as it is when it has its own main().
"""
import concurrent.futures
import os
import re
import subprocess
import sys
import tempfile

DIRECTIVE = re.compile(r"<!--\s*check-docs:\s*(.*?)\s*(-->)?$")
KINDS_RUN = {"sh", "cpp", "python"}
KINDS_QUIET = {"text", "ebnf"}


class Block:
    def __init__(self, path, line, kind, text, directives):
        self.path, self.line, self.kind, self.text = path, line, kind, text
        self.skip = None
        self.exit = 0
        self.short = None
        self.output_of = None
        self.expect = []
        self.harness = None
        self.compile_fails = False
        for key, body in directives:
            if key.startswith("skip"):
                self.skip = key[4:].strip()
            elif key.startswith("exit "):
                self.exit = int(key[5:])
            elif key.startswith("short form"):
                self.short = body
            elif key.startswith("output of "):
                self.output_of = key[len("output of "):]
            elif key.startswith("expect "):
                self.expect.append(key[len("expect "):])
            elif key == "cpp harness":
                self.harness = body
            elif key == "compile fails":
                self.compile_fails = True
            else:
                raise SystemExit(f"{path}:{line}: unknown check-docs directive '{key}'")

    @property
    def where(self):
        return f"{self.path}:{self.line}"


def parse(path):
    """The fenced blocks of one markdown file with the directives right before each."""
    blocks, problems = [], []
    lines = open(path, encoding="utf-8").read().split("\n")
    pending = []  # (key, multi-line body) of the comments since the last text line
    i = 0
    while i < len(lines):
        line = lines[i]
        m = DIRECTIVE.match(line.strip())
        if m:
            key, body = m.group(1), ""
            if not m.group(2):  # a comment that goes on until -->
                j = i + 1
                while j < len(lines) and lines[j].strip() != "-->":
                    j += 1
                if j == len(lines):
                    problems.append(f"{path}:{i + 1}: check-docs comment never closed")
                    break
                body = "\n".join(lines[i + 1:j]) + "\n"
                i = j
            pending.append((key, body))
            i += 1
            continue
        fence = re.match(r"^(\s*)(```+|~~~+)\s*(\S*)", line)
        if fence:
            indent, marker, kind = fence.groups()
            start = i + 1
            j = i + 1
            while j < len(lines) and not lines[j].strip().startswith(marker):
                j += 1
            text = "\n".join(l[len(indent):] if l.startswith(indent) else l for l in lines[i + 1:j])
            if not kind:
                problems.append(f"{path}:{start}: a fenced block without an info string "
                                f"(sh, cpp, text or ebnf): say what it is")
            elif kind not in KINDS_RUN | KINDS_QUIET:
                problems.append(f"{path}:{start}: unknown info string '{kind}'")
            else:
                b = Block(path, start, kind, text + "\n", pending)
                if b.skip == "" or (b.skip is not None and not b.skip.startswith("(")):
                    problems.append(f"{path}:{start}: skip needs a reason: skip (REASON)")
                if kind in KINDS_QUIET and (b.skip is not None or b.short is not None):
                    problems.append(f"{path}:{start}: a {kind} block is not run; drop the directive")
                blocks.append(b)
            pending = []
            i = j + 1
            continue
        if line.strip():
            pending = []
        i += 1
    return blocks, problems


def run_shell(script, cwd, timeout):
    p = subprocess.run(["bash", "-c", "set -eo pipefail\n" + script], cwd=cwd,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=timeout)
    return p.returncode, p.stdout.decode("utf-8", "replace")


def check_expect(b, out):
    return [f"{b.where}: the output does not contain '{e}'" for e in b.expect if e not in out]


def check_sh(b, cwd):
    script = b.short if b.short is not None else b.text
    try:
        status, out = run_shell(script, cwd, 600)
    except subprocess.TimeoutExpired:
        return [f"{b.where}: still running after 600 s (give it a short form)"], ""
    problems = []
    if status != b.exit:
        problems.append(f"{b.where}: exit status {status}, expected {b.exit}")
    problems += check_expect(b, out)
    return problems, out


def check_python(b, cwd):
    script = b.short if b.short is not None else b.text
    env = dict(os.environ)
    env["PYTHONPATH"] = os.path.join(cwd, "build", "python")
    try:
        p = subprocess.run(["/usr/bin/python3", "-c", script], cwd=cwd, env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=600)
    except subprocess.TimeoutExpired:
        return [f"{b.where}: still running after 600 s (give it a short form)"], ""
    out = p.stdout.decode("utf-8", "replace")
    problems = []
    if p.returncode != b.exit:
        problems.append(f"{b.where}: exit status {p.returncode}, expected {b.exit}")
    problems += check_expect(b, out)
    return problems, out


def check_output(b, cwd):
    try:
        status, out = run_shell(b.output_of, cwd, 600)
    except subprocess.TimeoutExpired:
        return [f"{b.where}: '{b.output_of}' still running after 600 s"], ""
    problems = []
    if status != b.exit:
        problems.append(f"{b.where}: '{b.output_of}' exited with {status}, expected {b.exit}")
    if out != b.text:
        problems.append(f"{b.where}: '{b.output_of}' printed something else than the block")
    return problems, out


# Given to every program: the bytes of a file (the captures check-docs.sh makes).
SUPPORT = """#include <cstddef>
#include <fstream>
#include <iterator>
#include <vector>
inline std::vector<std::byte> docs_read_file(const char* path) {
  std::ifstream in(path, std::ios::binary);
  std::vector<char> c((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::byte> out(c.size());
  for (std::size_t i = 0; i < c.size(); ++i) out[i] = static_cast<std::byte>(c[i]);
  return out;
}
"""


def cpp_program(b):
    includes = [l for l in b.text.split("\n") if l.startswith("#include")]
    body = "\n".join(l for l in b.text.split("\n") if not l.startswith("#include"))
    if b.harness is not None:
        program = b.harness.replace("@SNIPPET@", body)
    elif re.search(r"\bint main\(", b.text):
        program = body
    else:
        program = "#include <hwpc/hwpc.hpp>\nint main() {\n" + body + "\n}\n"
    return "\n".join(includes) + "\n" + SUPPORT + program


def check_cpp(b, cwd, cxx, flags, tmp):
    stem = os.path.join(tmp, re.sub(r"[^A-Za-z0-9]", "_", b.where))
    with open(stem + ".cpp", "w") as f:
        f.write(f"// {b.where}\n" + cpp_program(b))
    cmd = [cxx, "-std=c++20", "-I", os.path.join(cwd, "include"), stem + ".cpp", "-o", stem] + flags
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    out = p.stdout.decode("utf-8", "replace")
    if b.compile_fails:
        if p.returncode == 0:
            return [f"{b.where}: compiled, though the docs say it does not"], out
        return check_expect(b, out), out
    if p.returncode != 0:
        return [f"{b.where}: does not compile ({stem}.cpp)"], out
    status, run_out = run_shell(stem, cwd, 300)
    problems = [] if status == b.exit else [f"{b.where}: the program exited with {status}"]
    return problems + check_expect(b, run_out), out + run_out


def emit_cpp(out_dir, files):
    """Writes the programs of the C++ blocks to OUT_DIR (scripts/check-consumers.sh builds them
    against the installed package)."""
    for path in files:
        blocks, problems = parse(path)
        if problems:
            raise SystemExit("\n".join(problems))
        for b in blocks:
            if b.kind == "cpp" and b.skip is None and not b.compile_fails:
                name = re.sub(r"[^A-Za-z0-9]", "_", b.where)
                with open(os.path.join(out_dir, name + ".cpp"), "w") as f:
                    f.write(f"// {b.where}\n" + cpp_program(b))
    return 0


def main():
    if sys.argv[1] == "--emit-cpp":
        return emit_cpp(sys.argv[2], sys.argv[3:])
    cwd, files = sys.argv[1], sys.argv[2:]
    cxx = os.environ.get("CXX", "g++")
    flags = os.environ.get("HWPC_DOCS_CXXFLAGS", "").split()
    blocks, problems = [], []
    for path in files:
        b, p = parse(path)
        blocks += b
        problems += p
    counts = {"sh": 0, "cpp": 0, "python": 0, "output": 0, "skipped": 0, "short": 0}
    tmp = tempfile.mkdtemp(prefix="hwpc-docs-cpp-")

    def one(b):
        if b.skip is not None and b.kind in KINDS_RUN:
            return "skipped", [], ""
        if b.kind == "sh":
            return ("short" if b.short is not None else "sh"), *check_sh(b, cwd)
        if b.kind == "python":
            return ("short" if b.short is not None else "python"), *check_python(b, cwd)
        if b.kind == "cpp":
            return "cpp", *check_cpp(b, cwd, cxx, flags, tmp)
        if b.output_of is not None:
            return "output", *check_output(b, cwd)
        return None, [], ""

    # Shell blocks in order (later ones may read what earlier ones wrote); the C++ snippets,
    # which only compile and read the fixtures, two at a time beside them.
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        cpp = [(b, pool.submit(one, b)) for b in blocks if b.kind == "cpp"]
        results = [(b, one(b)) for b in blocks if b.kind != "cpp"]
        results += [(b, f.result()) for b, f in cpp]
    for b, (what, p, out) in sorted(results, key=lambda r: (r[0].path, r[0].line)):
        if what:
            counts[what] += 1
        if what == "skipped":
            print(f"skip {b.where} {b.skip}")
        if p:
            problems += p
            tail = "\n".join(out.rstrip().split("\n")[-40:])  # the end says what went wrong
            print(f"---- {b.where} ({b.kind}) failed; the output's last lines:\n{tail}\n----",
                  file=sys.stderr)
    print(f"check-docs: {counts['sh']} command blocks, {counts['python']} Python programs, "
          f"{counts['short']} short forms, {counts['cpp']} C++ snippets, {counts['output']} printed outputs checked; "
          f"{counts['skipped']} skipped with a reason")
    for p in problems:
        print(p, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
