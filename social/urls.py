from django.urls import path

from social import views

app_name = "social"

urlpatterns = [
    path("players/online/", views.online, name="online"),
    path("watch/", views.watch, name="watch"),
    path("players/friends/", views.friends, name="friends"),
    path("players/<int:pk>/follow/", views.follow, name="follow"),
    path("players/<int:pk>/challenge/", views.challenge_new, name="challenge_new"),
    path("challenges/", views.challenges, name="challenges"),
    path("challenges/settings/", views.preference, name="preference"),
    path("challenges/<int:pk>/", views.challenge, name="challenge"),
    path("challenges/<int:pk>/card/", views.challenge_card, name="challenge_card"),
    path("challenges/<int:pk>/accept/", views.challenge_accept, name="challenge_accept"),
    path("challenges/<int:pk>/decline/", views.challenge_decline, name="challenge_decline"),
    path("challenges/<int:pk>/withdraw/", views.challenge_withdraw, name="challenge_withdraw"),
]
