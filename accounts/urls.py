from django.urls import path

from accounts import views

app_name = "accounts"

urlpatterns = [
    path("players/<int:pk>/", views.profile, name="profile"),
    path("profile/", views.my_profile, name="my_profile"),
    path("profile/edit/", views.profile_edit, name="profile_edit"),
]
