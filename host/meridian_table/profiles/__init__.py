"""Board profiles: which matrix position and LED each game site is wired to.

```python
profile = load_profile(NAME)                # a shipped profile's name or a path
profile.sites["G6"]                         # Site(pos=..., led=...)
profile.site_at(pos)                        # site or button name
profile.firmware_config()                   # the Pico's config.json
```
"""

from meridian_table.profiles.loader import (
    is_shipped,
    list_profiles,
    load_profile,
    profile_from_dict,
    resolve,
    search_path,
    shipped_dirs,
    shipped_profile,
)
from meridian_table.profiles.model import Profile, ProfileError, ShiftChain, Site
from meridian_table.profiles.writer import dumps_profile, save_profile

__all__ = [
    "Profile",
    "ProfileError",
    "ShiftChain",
    "Site",
    "dumps_profile",
    "is_shipped",
    "shipped_dirs",
    "shipped_profile",
    "list_profiles",
    "load_profile",
    "profile_from_dict",
    "resolve",
    "save_profile",
    "search_path",
]
