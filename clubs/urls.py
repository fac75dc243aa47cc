from django.urls import path

from clubs import views

app_name = "clubs"

urlpatterns = [
    path("clubs/", views.club_list, name="list"),
    path("clubs/<slug:slug>/", views.club_detail, name="detail"),
    path("clubs/<slug:slug>/edit/", views.club_edit, name="edit"),
    path("clubs/<slug:slug>/notice/", views.notice_card, name="notice_card"),
    path("clubs/<slug:slug>/join/", views.join, name="join"),
    path("clubs/<slug:slug>/leave/", views.leave, name="leave"),
    path("clubs/<slug:slug>/members/<int:user_id>/approve/", views.approve, name="approve"),
    path("clubs/<slug:slug>/members/<int:user_id>/decline/", views.decline, name="decline"),
    path("clubs/<slug:slug>/members/<int:user_id>/appoint/", views.appoint, name="appoint"),
    path("clubs/<slug:slug>/members/<int:user_id>/remove/", views.remove, name="remove"),
]
