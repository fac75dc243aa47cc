from django.urls import path

from privacy import views

app_name = "privacy"

urlpatterns = [
    path("profile/my-data/", views.data_download, name="download"),
    path("profile/close/", views.account_close, name="close"),
]
