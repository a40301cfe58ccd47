#!/bin/sh
# Runs once, on the first start of the compose PostgreSQL (docker-entrypoint-initdb.d): creates the
# Holdfast roles with their passwords from the secrets, hands the application database to the
# migration owner (holdfast_operator), and gives the schema registry a database and role of its own.
# The migrations find the roles in place and only grant (docs/security.md, "Privilege and transport").
set -eu
secret() { tr -d '\n' < "/run/secrets/$1"; }
psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname "$POSTGRES_DB" \
  -v operator="$(secret operator_db_password)" \
  -v gateway="$(secret gateway_db_password)" \
  -v projector="$(secret projector_db_password)" \
  -v recompute="$(secret recompute_db_password)" \
  -v dispatcher="$(secret dispatcher_db_password)" \
  -v console="$(secret console_db_password)" \
  -v registry="$(secret registry_db_password)" \
  -v appdb="$POSTGRES_DB" <<'SQL'
create role holdfast_operator login createrole password :'operator';
create role holdfast_gateway login password :'gateway';
create role holdfast_projector login password :'projector';
create role holdfast_recompute login password :'recompute';
create role holdfast_dispatcher login password :'dispatcher';
create role holdfast_console login password :'console';
create role holdfast_analyst nologin;
grant holdfast_gateway, holdfast_projector, holdfast_recompute, holdfast_dispatcher to holdfast_operator;
alter database :"appdb" owner to holdfast_operator;
create role holdfast_registry login password :'registry';
create database holdfast_registry owner holdfast_registry;
SQL
