from django.urls import path

from history import views

app_name = "history"

urlpatterns = [
    path("games/<int:game_id>/", views.game_page, name="game"),
    path("games/<int:game_id>/export.txt", views.game_export, name="export"),
]
