from django.urls import path

from coach import views

app_name = "coach"

urlpatterns = [
    path("games/<int:game_id>/review/", views.review, name="review"),
    path("tables/<int:table_id>/hint/", views.hint, name="hint"),
]
