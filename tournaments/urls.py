from django.urls import path

from tournaments import views

app_name = "tournaments"

urlpatterns = [
    path("tournaments/", views.tournament_list, name="list"),
    path("tournaments/new/", views.tournament_new, name="new"),
    path("tournaments/<int:pk>/", views.tournament_detail, name="detail"),
    path("tournaments/<int:pk>/live/", views.tournament_live, name="live"),
    path("tournaments/<int:pk>/notice/", views.notice_card, name="notice_card"),
    path("tournaments/<int:pk>/register/", views.register, name="register"),
    path("tournaments/<int:pk>/withdraw/", views.withdraw, name="withdraw"),
    path("tournaments/<int:pk>/check-in/", views.check_in, name="check_in"),
    path(
        "tournaments/<int:pk>/invitations/<int:entry_id>/",
        views.partner_answer,
        name="partner_answer",
    ),
    path("tournaments/<int:pk>/edit/", views.tournament_edit, name="edit"),
    path("tournaments/<int:pk>/publish/", views.tournament_publish, name="publish"),
    path("tournaments/<int:pk>/cancel/", views.tournament_cancel, name="cancel"),
    path("tournaments/<int:pk>/manage/", views.tournament_manage, name="manage"),
    path("tournaments/<int:pk>/manage/live/", views.tournament_manage_live, name="manage_live"),
    path("tournaments/<int:pk>/manage/seeds/", views.seeds_set, name="seeds"),
    path(
        "tournaments/<int:pk>/entries/<int:entry_id>/disqualify/",
        views.entry_disqualify,
        name="disqualify",
    ),
    path(
        "tournaments/<int:pk>/matches/<int:match_id>/settle/",
        views.match_settle,
        name="settle",
    ),
]
