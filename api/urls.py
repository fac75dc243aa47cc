from django.urls import path

from api.site import api

urlpatterns = [path("api/", api.urls)]
