from django.urls import path

from pairing import views

app_name = "pairing"

urlpatterns = [
    path("play/join/", views.join, name="join"),
    path("play/leave/", views.leave, name="leave"),
    path("play/status/", views.status, name="status"),
    path("play/table/", views.to_table, name="to_table"),
    path("play/seated/<int:table_id>/card/", views.seated_card, name="seated_card"),
]
