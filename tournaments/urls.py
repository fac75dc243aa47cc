from django.urls import path

from tournaments import series_views, views

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
    path("tournaments/<int:pk>/message/", views.message_send, name="message"),
    path(
        "tournaments/<int:pk>/messages/<int:message_id>/card/",
        views.message_card,
        name="message_card",
    ),
    path("tournaments/<int:pk>/export/entrants.csv", views.export_entrants, name="export_entrants"),
    path("tournaments/<int:pk>/export/games.csv", views.export_games, name="export_games"),
    path("tournaments/<int:pk>/arena/pause/", views.arena_pause, name="arena_pause"),
    path("tournaments/<int:pk>/arena/berserk/", views.arena_berserk, name="arena_berserk"),
    path("series/", series_views.series_list, name="series_list"),
    path("series/new/", series_views.series_new, name="series_new"),
    path("series/<int:pk>/", series_views.series_detail, name="series"),
    path("series/<int:pk>/edit/", series_views.series_edit, name="series_edit"),
    path("series/<int:pk>/pause/", series_views.series_pause, name="series_pause"),
    path("series/<int:pk>/resume/", series_views.series_resume, name="series_resume"),
    path("series/<int:pk>/end/", series_views.series_end, name="series_end"),
    path("series/<int:pk>/follow/", series_views.series_follow, name="series_follow"),
    path("series/<int:pk>/organizers/", series_views.co_organizer, name="series_organizers"),
    path("series/<int:pk>/cancel/", series_views.occurrence_cancel, name="series_cancel"),
    path(
        "series/<int:pk>/notice/<int:tournament_id>/",
        series_views.series_notice,
        name="series_notice",
    ),
]
