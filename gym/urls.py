from django.urls import path

from gym import views

app_name = "gym"
urlpatterns = [
    path("workouts/<int:pk>/done/", views.done, name="done"),
]
