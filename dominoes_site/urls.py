from django.contrib import admin
from django.urls import include, path

from accounts import views as account_views
from dominoes_site import health, metrics, views

urlpatterns = [
    path("", views.home, name="home"),
    path("rules/", views.rules, name="rules"),
    path("my-games/", views.my_games, name="my_games"),
    path("healthz", health.healthz, name="healthz"),
    path("metrics", metrics.metrics, name="metrics"),
    path("i18n/setlang/", account_views.set_language, name="set_language"),
    path("accounts/signup/", account_views.signup, name="account_signup"),
    path("accounts/", include("allauth.urls")),
    path("", include("accounts.urls")),
    path("", include("privacy.urls")),
    path("", include("tables.urls")),
    path("", include("gym.urls")),
    path("", include("history.urls")),
    path("", include("house.urls")),
    path("", include("ledger.urls")),
    path("", include("tournaments.urls")),
    path("", include("ratings.urls")),
    path("", include("coach.urls")),
    path("", include("pairing.urls")),
    path("", include("social.urls")),
    path("", include("clubs.urls")),
    path("", include("api.urls")),
    path("oauth/", include("oauth2_provider.urls", namespace="oauth2_provider")),
    path("admin/", admin.site.urls),
]
