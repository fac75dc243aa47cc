from django.urls import path

from tables import views

app_name = "tables"

urlpatterns = [
    path("lobby/", views.lobby, name="lobby"),
    path("lobby/tables/", views.lobby_tables, name="lobby_tables"),
    path("lobby/join/", views.join_by_code, name="join"),
    path("lobby/sit/<int:table_id>/", views.sit, name="sit"),
    path("tables/<int:table_id>/", views.table_page, name="table"),
]
