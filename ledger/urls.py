from django.urls import path

from ledger import views

app_name = "ledger"

urlpatterns = [
    path("locker/", views.locker, name="locker"),
    path("locker/claim/", views.claim, name="claim"),
    path("commissary/", views.commissary, name="commissary"),
    path("commissary/buy/", views.buy, name="buy"),
    path("ledger/staff/adjust/", views.adjust, name="adjust"),
]
