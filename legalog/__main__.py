from legalog.cli import main

raise SystemExit(main())
