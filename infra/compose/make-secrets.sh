#!/bin/sh
# Writes a random password per compose secret into ./.secrets (mode 600, git-ignored) and the
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
if ! grep -q '^HOLDFAST_REGISTRY_DB_PASSWORD=' .env 2>/dev/null; then
  echo "HOLDFAST_REGISTRY_DB_PASSWORD=$(cat .secrets/registry_db_password)" >> .env
fi
echo "secrets in .secrets/, registry password in .env"
