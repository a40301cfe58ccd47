#!/bin/sh
# Writes a random password per compose secret and a key list per key setting into ./.secrets (mode 600, git-ignored) and the
# registry's into ./.env (Apicurio reads no secret files). Existing files are kept: run it again
# after deleting one to rotate it (docs/security.md, "Privilege and transport").
set -eu
cd "$(dirname "$0")/../.."
umask 077
mkdir -p .secrets
for name in postgres operator_db gateway_db projector_db recompute_db dispatcher_db console_db registry_db; do
  f=".secrets/${name}_password"
  [ -s "$f" ] || od -An -N24 -tx1 /dev/urandom | tr -d ' \n' > "$f"
done
# The key lists (id:base64 of 32 bytes, current first; docs/security.md, docs/privacy.md): one key
# each to start with. Rotating one: put a new entry first in its file, keep the old one after it.
for name in secrets_keys unsubscribe_keys inbound_keys privacy_keys console_keys; do
  f=".secrets/${name}"
  [ -s "$f" ] || printf 'k1:%s' "$(head -c 32 /dev/urandom | base64 | tr -d '\n')" > "$f"
done
if ! grep -q '^HOLDFAST_REGISTRY_DB_PASSWORD=' .env 2>/dev/null; then
  echo "HOLDFAST_REGISTRY_DB_PASSWORD=$(cat .secrets/registry_db_password)" >> .env
fi
echo "secrets and keys in .secrets/, registry password in .env"
