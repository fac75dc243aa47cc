from django.urls import path

from house import views

app_name = "house"

urlpatterns = [
    path("lobby/practice/", views.practice, name="practice"),
]
