from django.urls import path

from ratings import views

app_name = "ratings"
urlpatterns = [
    path("leaderboards/", views.leaderboard, name="leaderboard"),
    path("leaderboards/<slug:pool>/", views.leaderboard, name="pool"),
]
