# Sourced by scripts/test and bench/launch.sh: the real agent CLIs the
# end-to-end tests and the launch benchmark drive through lf (tests/real),
# from npm, the exact versions, installed into .tools/agents only when
# missing; exports LF_TEST_CLAUDE, LF_TEST_CODEX, LF_TEST_GEMINI and
# LF_TEST_OPENCODE (and their versions). They only ever talk to the tests'
# fake model servers on 127.0.0.1.
root_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# The pins (scripts/agent-versions), or what LF_AGENTS=latest asks npm for
# (scripts/test-latest), each in a folder of its own.
claude_version=$(sed -n 's/^claude=//p' "$root_dir/scripts/agent-versions")
codex_version=$(sed -n 's/^codex=//p' "$root_dir/scripts/agent-versions")
gemini_version=$(sed -n 's/^gemini=//p' "$root_dir/scripts/agent-versions")
opencode_version=$(sed -n 's/^opencode=//p' "$root_dir/scripts/agent-versions")
agents_dir="$root_dir/.tools/agents"
if [ "${LF_AGENTS:-pinned}" = latest ]; then
  claude_version=$(npm view @anthropic-ai/claude-code version)
  codex_version=$(npm view @openai/codex version)
  gemini_version=$(npm view @google/gemini-cli version)
  opencode_version=$(npm view opencode-ai version)
  agents_dir="$root_dir/.tools/agents-latest"
fi
LF_TEST_CLAUDE="$agents_dir/node_modules/.bin/claude"
LF_TEST_CODEX="$agents_dir/node_modules/.bin/codex"
LF_TEST_GEMINI="$agents_dir/node_modules/.bin/gemini"
LF_TEST_OPENCODE="$agents_dir/node_modules/.bin/opencode"
agent_version() {
  node -p "require(process.argv[1]).version" "$agents_dir/node_modules/$1/package.json" 2>/dev/null || true
}
if [ "$(agent_version @anthropic-ai/claude-code)" != "$claude_version" ] ||
  [ "$(agent_version @openai/codex)" != "$codex_version" ] ||
  [ "$(agent_version @google/gemini-cli)" != "$gemini_version" ] ||
  [ "$(agent_version opencode-ai)" != "$opencode_version" ] ||
  [ ! -x "$LF_TEST_CLAUDE" ] || [ ! -x "$LF_TEST_CODEX" ] ||
  [ ! -x "$LF_TEST_GEMINI" ] || [ ! -x "$LF_TEST_OPENCODE" ]; then
  echo "installing Claude Code $claude_version, Codex $codex_version, Gemini CLI $gemini_version and OpenCode $opencode_version into $agents_dir" >&2
  npm install --silent --no-save --prefix "$agents_dir" \
    "@anthropic-ai/claude-code@$claude_version" "@openai/codex@$codex_version" \
    "@google/gemini-cli@$gemini_version" "opencode-ai@$opencode_version"
fi
LF_TEST_CLAUDE_VERSION=$claude_version
LF_TEST_CODEX_VERSION=$codex_version
LF_TEST_GEMINI_VERSION=$gemini_version
LF_TEST_OPENCODE_VERSION=$opencode_version
export LF_TEST_CLAUDE LF_TEST_CODEX LF_TEST_CLAUDE_VERSION LF_TEST_CODEX_VERSION \
  LF_TEST_GEMINI LF_TEST_OPENCODE LF_TEST_GEMINI_VERSION LF_TEST_OPENCODE_VERSION

# A loopback-only network namespace for a command (the agents try other
# hosts: telemetry, plugins, updates): `unshare -n` as root, else a user
# namespace that maps us to root for it.
hermetic() {
  local isolate=(unshare -n)
  [ "$(id -u)" = 0 ] || isolate=(unshare -r -n)
  "${isolate[@]}" sh -c 'ip link set lo up && exec "$@"' sh "$@"
}
