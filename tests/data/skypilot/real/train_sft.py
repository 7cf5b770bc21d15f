print("placeholder for the fixtures' workdir")
