#!/bin/sh
# run.sh <python> <port> <state-dir>: a fresh database in <state-dir>, migrated, then runserver on 127.0.0.1.
cd "$(dirname "$0")" || exit 1
export DJANGO_SETTINGS_MODULE=allauth_settings ALLAUTH_STATE="$3" PYTHONPATH="$(pwd)"
rm -f "$3/allauth.sqlite"
"$1" -m django migrate --noinput >/dev/null || exit 1
exec "$1" -m django runserver "127.0.0.1:$2" --noreload --settings=allauth_settings
