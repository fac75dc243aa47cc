from django.urls import path

from api import views
from api.site import api

urlpatterns = [
    path("api/", api.urls),
    path("profile/api/", views.tokens_page, name="api_tokens"),
    path(
        "profile/api/tokens/<int:token_id>/revoke/",
        views.token_revoke_view,
        name="api_token_revoke",
    ),
    path("profile/api/apps/<int:app_id>/revoke/", views.app_revoke, name="api_app_revoke"),
    path("developers/", views.developers, name="developers"),
    # django-oauth-toolkit's consent page, with the scopes in our words: this app's URLs come
    # before /oauth/'s (dominoes_site/urls.py), so this one answers /oauth/authorize/.
    path("oauth/authorize/", views.ConsentView.as_view(), name="oauth_consent"),
]
