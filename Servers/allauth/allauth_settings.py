"""django-allauth headless test project (settings; URLs in allauth_urls.py): the app client of allauth's headless
API, sessions by X-Session-Token."""

import os

BASE = os.environ.get("ALLAUTH_STATE", "/tmp")
SECRET_KEY = "companionkit-test-only-not-a-secret"
DEBUG = False
ALLOWED_HOSTS = ["127.0.0.1", "localhost"]
USE_TZ = True
ROOT_URLCONF = "allauth_urls"
INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "allauth",
    "allauth.account",
    "allauth.mfa",
    "allauth.headless",
    "allauth.usersessions",
]
MIDDLEWARE = [
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "allauth.account.middleware.AccountMiddleware",
    "allauth.usersessions.middleware.UserSessionsMiddleware",
]
AUTHENTICATION_BACKENDS = [
    "django.contrib.auth.backends.ModelBackend",
    "allauth.account.auth_backends.AuthenticationBackend",
]
DATABASES = {
    "default": {
        "ENGINE": "django.db.backends.sqlite3",
        "NAME": os.path.join(BASE, "allauth.sqlite"),
        "OPTIONS": {"timeout": 20},  # runserver is threaded; wait for the write lock instead of a 500
    }
}
TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ]
        },
    }
]
STATIC_URL = "/static/"
ACCOUNT_LOGIN_METHODS = {"username"}
ACCOUNT_SIGNUP_FIELDS = ["username*", "password1*"]
ACCOUNT_EMAIL_VERIFICATION = "none"
HEADLESS_CLIENTS = ("app", "browser")
HEADLESS_SERVE_SPECIFICATION = True
HEADLESS_FRONTEND_URLS = {"account_reset_password_from_key": "http://127.0.0.1/reset/{key}"}
MFA_SUPPORTED_TYPES = ["totp", "recovery_codes"]
USERSESSIONS_TRACK_ACTIVITY = True
# One 30 s window either side, so a test can use the next window's code instead of waiting 30 s.
MFA_TOTP_TOLERANCE = 1
CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
