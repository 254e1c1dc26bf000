"""URLs: the headless JSON API and the web pages (TOTP activation needs the latter mounted)."""

from django.urls import include, path

urlpatterns = [path("_allauth/", include("allauth.headless.urls")), path("accounts/", include("allauth.urls"))]
